import Foundation

/// Finds the article in a page: the elements nobody reads are dropped (scripts, navigation,
/// hidden things, and blocks whose names say they are comments, share bars, ads or related
/// links); every paragraph gives its ancestors points for its length and commas; the best-scored
/// container (its points cut by how much of its text is links) wins, with the siblings that look
/// like more of the same; then what is left of menus, link lists and forms inside it is cleaned
/// away. Tables, code and quotes stay; photo captions go (the reader shows no pictures).
struct Extractor {
    var document: HTMLDocument
    let title: String?
    /// Whether blocks whose names say "not the article" are dropped before scoring; a second try
    /// keeps them, for a page whose whole article sits in one so named (as Readability retries).
    var dropsUnlikely = true

    // Names that say what a block is. Checked against `class` and `id` together, lower-cased.
    static let unlikely = ["ad-", "ads", "advert", "banner", "breadcrumb", "combx", "comment", "community", "cookie", "consent", "disqus",
                           "extra", "footer", "gdpr", "header", "legends", "menu", "modal", "nav", "newsletter", "outbrain", "pager",
                           "pagination", "popup", "promo", "related", "remark", "replies", "rss", "share", "sharing", "shoutbox", "sidebar",
                           "skyscraper", "social", "sponsor", "subscribe", "taboola", "toolbar", "tags", "widget", "signup", "login", "follow",
                           "signature", "postauthor", "kicker"]
    static let conversation = ["comment", "disqus", "replies", "respond", "discussion"]
    /// The whole text of an element that is a control, not the article.
    static let controlWords: Set<String> = ["caption", "close", "back to gallery", "read more", "continue reading", "advertisement",
                                            "show caption", "hide caption", "expand", "enlarge this image", "view gallery", "next", "previous",
                                            "subscribe", "sign up", "share", "share this", "share this article", "print", "email", "advert",
                                            "tags", "tags:", "tagged", "tagged:", "by", "comments", "this slideshow requires javascript.",
                                            "like this:", "like loading...", "share this:", "sharing is caring!", "0 shares", "0shares",
                                            "see more photos:", "advertisement - continue reading below"]
    /// How a line pointing to another article starts ("Related: …", "Read more: …").
    static let pointers = ["related:", "read more:", "read also:", "see also:", "also read:", "more:", "watch:", "read:"]
    /// Headings over other articles, after the article (English, and the languages most pages here are in).
    static let relatedHeadings: Set<String> = ["related", "related posts", "related articles", "related stories", "you may also like",
                                               "you might also like", "more stories", "read next", "recommended", "recommended for you",
                                               "more from", "você pode gostar", "veja também", "leia também", "también te puede interesar",
                                               "lire aussi", "à lire aussi", "das könnte sie auch interessieren", "potrebbe interessarti anche"]
    /// The last link of a teaser (another article's opening, then a link to it).
    static let teaserEnds: Set<String> = ["read more", "continue reading", "read the full story", "read full article"]
    static let galleries = ["gallery", "slideshow", "carousel", "lightbox"]
    static let likely = ["and", "article", "body", "column", "content", "main", "shadow", "post", "entry", "story", "text", "prose"]
    static let positive = ["article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "post", "text", "blog", "story", "prose", "chapter"]
    static let negative = ["-ad-", "hidden", "banner", "combx", "comment", "com-", "contact", "foot", "footer", "footnote", "gdpr", "masthead",
                           "media", "meta", "outbrain", "promo", "related", "scroll", "share", "shoutbox", "sidebar", "skyscraper", "sponsor",
                           "shopping", "tags", "tool", "widget", "byline", "author", "dateline", "caption-credit", "pagination", "pager"]
    static let dropped: Set<String> = ["script", "style", "noscript", "template", "iframe", "object", "embed", "button", "input", "select",
                                       "textarea", "svg", "canvas", "link", "meta", "head", "title", "nav", "aside", "footer", "form",
                                       "dialog", "map", "audio", "video", "source", "track", "picture"]
    static let droppedRoles: Set<String> = ["navigation", "complementary", "banner", "contentinfo", "menu", "menubar", "dialog", "alert",
                                            "alertdialog", "search", "toolbar", "tablist"]
    /// Elements that start a block of their own (a `div` holding none of them is read as a paragraph).
    static let blocks: Set<String> = ["address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "fieldset", "figcaption", "figure",
                                      "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre",
                                      "section", "table", "tbody", "thead", "tfoot", "tr", "td", "th", "ul", "details", "summary", "center"]

    init(_ document: HTMLDocument, title: String?) {
        self.document = document
        self.title = title
    }

    func names(_ index: Int) -> String {
        let attributes = document.nodes[index].attributes
        guard !attributes.isEmpty else { return "" }
        return ((attributes["class"] ?? "") + " " + (attributes["id"] ?? "")).lowercased()
    }

    /// What an element's class and id say, worked out once per distinct pair (pages repeat them).
    struct NameFacts {
        var unlikely = false, likely = false, weight = 0.0
        /// Comments and replies: dropped on the second try too (they are never the article).
        var conversation = false
        /// A gallery, slideshow or carousel: cleaned out of the article.
        var gallery = false
    }

    final class Facts {
        var known: [String: NameFacts] = [:]
    }

    let facts = Facts()

    func nameFacts(_ index: Int) -> NameFacts {
        let names = names(index)
        guard names.count > 1 else { return NameFacts() }
        if let known = facts.known[names] { return known }
        var found = NameFacts()
        found.unlikely = Self.unlikely.contains { names.contains($0) }
        found.likely = Self.likely.contains { names.contains($0) }
        found.conversation = Self.conversation.contains { names.contains($0) }
        found.gallery = Self.galleries.contains { names.contains($0) }
        if Self.negative.contains(where: { names.contains($0) }) { found.weight -= 25 }
        if Self.positive.contains(where: { names.contains($0) }) { found.weight += 25 }
        facts.known[names] = found
        return found
    }

    /// −25 for a name that says "not the article", +25 for one that says "the article".
    func weight(_ index: Int) -> Double { nameFacts(index).weight }

    func linkDensity(_ index: Int) -> Double {
        let (all, linked) = document.textLength(of: index)
        return all == 0 ? 0 : Double(linked) / Double(all)
    }

    /// The page's body, with what nobody reads taken out.
    mutating func prepare() -> Int {
        let body = document.first("body") ?? document.root
        let bodyParagraphs = document.descendants(of: body, named: ["p"]).count
        /// Whether an element about to be dropped holds the page's article: its `<main>` or
        /// `<article>`, or most of its paragraphs. A page whose end tags the parser could not
        /// match (HTML5 elements in libxml2's HTML 4 parser) nests everything after a site's
        /// header or menu inside it; dropped whole, the page would read as empty.
        func holdsThePage(_ index: Int) -> Bool {
            guard !document.elements(in: index).isEmpty else { return false }
            // (An <article> of a few lines is a teaser card, as a sidebar holds them.)
            if document.descendants(of: index, named: ["main", "article"]).contains(where: {
                document[$0].name == "main" || document.descendants(of: $0, named: ["p"]).count >= 3
            }) { return true }
            // Most of the page's paragraphs, inside what comes before a page's content (a footer
            // that holds them is a list of teasers under a short story).
            guard document[index].name != "footer" else { return false }
            let paragraphs = document.descendants(of: index, named: ["p"]).count
            return paragraphs >= 3 && paragraphs * 2 > bodyParagraphs
        }
        var stack = [body]
        while let index = stack.popLast() {
            for child in document.elements(in: index) {
                let node = document.nodes[child]
                let facts = nameFacts(child)
                let style = (node.attributes["style"] ?? "").lowercased().replacingOccurrences(of: " ", with: "")
                let hidden = node.attributes["hidden"] != nil || node.attributes["aria-hidden"] == "true"
                    || style.contains("display:none") || style.contains("visibility:hidden")
                let role = (node.attributes["role"] ?? "").lowercased()
                let unlikely = (dropsUnlikely ? facts.unlikely : facts.conversation) && !facts.likely
                    && !["body", "a", "article", "main", "table", "tbody", "tr", "td", "pre", "code"].contains(node.name)
                // A form is a newsletter box or a search, unless the page is written inside one
                // (ASP.NET's pages are: the whole body is one form).
                let pageForm = node.name == "form" && document.descendants(of: child, named: ["p"]).count >= 3
                // (Only what is dropped for its element or role: a class name is the page's own,
                // never the parser's nesting, and comments may outnumber the story's paragraphs.)
                let drops = (Self.dropped.contains(node.name) && !pageForm) || Self.droppedRoles.contains(role)
                    || (node.name == "header" && document.descendants(of: child, named: ["p"]).count < 2)
                if hidden || unlikely || (drops && !holdsThePage(child)) {
                    document.remove(child)
                } else {
                    stack.append(child)
                }
            }
        }
        return body
    }

    /// Whether an element reads as a paragraph: a `p`, `pre`, `td` or `blockquote`, or a `div`
    /// (`section`) with only inline content.
    func isParagraph(_ index: Int) -> Bool {
        let node = document[index]
        switch node.name {
        case "p", "pre", "td", "blockquote", "li", "dd": return true
        case "div", "section", "article", "span", "font", "center":
            return !document.elements(in: index).contains { Self.blocks.contains(document[$0].name) }
        default: return false
        }
    }

    static let commas: Set<Unicode.Scalar> = [",", "，", "、", "،", "፣", "﹐", "､"]

    /// The text of an element's children that are not blocks (its text nodes and inline elements).
    func looseText(_ index: Int) -> String {
        var parts: [String] = []
        for child in document.nodes[index].children where !document.nodes[child].removed {
            let node = document.nodes[child]
            if node.kind == .text { parts.append(node.text) } else if !Self.blocks.contains(node.name) { parts.append(document.text(of: child)) }
        }
        return parts.joined(separator: " ").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The article's containers, in page order: the best one and the siblings that belong with it.
    mutating func candidates(in body: Int) -> [Int] {
        var scores: [Int: Double] = [:]
        func initial(_ index: Int) -> Double {
            let base: Double
            switch document[index].name {
            case "div", "article", "main", "section": base = 5
            case "pre", "td", "blockquote": base = 3
            case "address", "ol", "ul", "dl", "dd", "dt", "li", "form": base = -3
            case "h1", "h2", "h3", "h4", "h5", "h6", "th": base = -5
            default: base = 0
            }
            return base + weight(index)
        }
        for index in document.descendants(of: body) {
            // A paragraph; or a container's own loose text beside its blocks, read as a paragraph
            // of its own inside it (a page that writes its story straight into a div).
            let paragraph = isParagraph(index)
            let loose = !paragraph && ["div", "section", "article", "main", "td"].contains(document[index].name)
            guard paragraph || loose else { continue }
            let text = paragraph ? document.text(of: index) : looseText(index)
            // Ideographic scripts say as much in fewer characters.
            let wide = text.unicodeScalars.contains { $0.value >= 0x2E80 && $0.value <= 0x9FFF || $0.value >= 0xAC00 && $0.value <= 0xD7AF }
            let length = text.unicodeScalars.count * (wide ? 3 : 1)
            guard length >= 25 else { continue }
            let points = 1 + Double(text.unicodeScalars.filter { Self.commas.contains($0) }.count) + min(Double(length / 100), 3)
            var ancestor = index
            for level in 0..<3 {
                // (Loose text's first container is its own.)
                ancestor = loose && level == 0 ? index : document[ancestor].parent
                guard ancestor >= 0, ancestor != document[body].parent else { break }
                if scores[ancestor] == nil { scores[ancestor] = initial(ancestor) }
                scores[ancestor]! += points / (level == 0 ? 1 : level == 1 ? 2 : Double(level) * 3)
                if ancestor == body { break }
            }
        }
        guard !scores.isEmpty else { return [body] }
        let final = scores.map { (index: $0.key, score: $0.value * (1 - linkDensity($0.key))) }
        let ranked = final.sorted { $0.score > $1.score || ($0.score == $1.score && $0.index < $1.index) }
        var top = ranked[0].index
        let topScore = ranked[0].score
        // When the best few share an ancestor, the article is that ancestor (a story split into
        // several containers).
        let close = ranked.dropFirst().prefix(5).filter { $0.score >= topScore * 0.75 }.map(\.index)
        if close.count >= 2 {
            var ancestor = top
            while ancestor >= 0, ancestor != document[body].parent {
                let holds = close.filter { isAncestor(ancestor, of: $0) }.count
                if holds >= 2 { top = ancestor; break }
                ancestor = document[ancestor].parent
            }
        }
        // A lone container inside its parent: the parent holds the same, maybe with a heading.
        while document[top].parent >= 0, top != body, document.elements(in: document[top].parent).count == 1 {
            top = document[top].parent
        }
        // A story split into sections of its own (a magazine's layout): an ancestor a few levels up
        // whose paragraphs hold half as much again, in paragraphs of their own, with few links.
        // Never past the page's own <article>, nor to the whole body (other stories' teasers).
        // (Only from a container written in paragraphs: one written in divs or loose text has
        // nothing to measure the ancestors against.)
        var held = paragraphText(in: top)
        var ancestor = document[top].parent
        for _ in 0..<4 where held.count >= 2 {
            guard ancestor >= 0, ancestor != body, document[top].name != "article" else { break }
            let more = paragraphText(in: ancestor)
            // (Another story: an <article> of paragraphs beside this one; a card of a video is not.)
            let holdsAnother = document.descendants(of: ancestor, named: ["article"])
                .contains { $0 != top && !isAncestor($0, of: top) && paragraphText(in: $0).count >= 2 }
            if !holdsAnother, Double(more.length) >= Double(held.length) * 1.5, more.count >= held.count + 2, linkDensity(ancestor) < 0.3 {
                top = ancestor
                held = more
            }
            if document[ancestor].name == "article" { break }
            ancestor = document[ancestor].parent
        }
        let parent = document[top].parent
        guard parent >= 0, top != body else { return [top] }
        let threshold = max(10, (scores[top] ?? topScore) * 0.2)
        let topClass = document[top].attributes["class"] ?? ""
        var chosen: [Int] = []
        for sibling in document.elements(in: parent) {
            if sibling == top { chosen.append(sibling); continue }
            var bonus = 0.0
            if !topClass.isEmpty, document[sibling].attributes["class"] == topClass { bonus = (scores[top] ?? 0) * 0.2 }
            if let score = scores[sibling], score + bonus >= threshold { chosen.append(sibling); continue }
            if ["p", "blockquote", "pre", "ul", "ol", "figure", "table", "h2", "h3", "h4"].contains(document[sibling].name) || isParagraph(sibling) {
                let text = document.text(of: sibling), density = linkDensity(sibling)
                if text.count > 80 && density < 0.25 { chosen.append(sibling) }
                else if text.count > 0 && text.count <= 80 && density == 0 && text.range(of: "\\.( |$)", options: .regularExpression) != nil { chosen.append(sibling) }
                // A heading, figure, table or code that follows something already chosen.
                else if ["h2", "h3", "h4", "figure", "table", "pre"].contains(document[sibling].name) && !chosen.isEmpty { chosen.append(sibling) }
            }
        }
        return chosen
    }

    /// Whether a heading's or a line's words (lower-cased) say other stories follow ("Related
    /// posts:", "You may also like…").
    static func headsRelated(_ words: String) -> Bool {
        relatedHeadings.contains(words.trimmingCharacters(in: CharacterSet(charactersIn: ".…:!? ")))
    }

    /// A "Related" heading or line and what follows it in its container: other stories' links and
    /// teasers, up to the first paragraph that reads as this article's prose again (a teaser's
    /// excerpt sits in a card of its own, not in a paragraph beside the heading).
    mutating func removeRelated(from index: Int) {
        for sibling in document.elements(in: document[index].parent).drop(while: { $0 != index }) {
            let (all, linked) = document.textLength(of: sibling)
            if sibling != index, ["p", "blockquote"].contains(document[sibling].name), all - linked >= 80, Double(linked) < Double(all) * 0.25 { break }
            document.remove(sibling)
        }
    }

    /// Whether a caption's container holds a table, code or a quote (what it is about can be heard).
    func holdsText(_ figure: Int) -> Bool {
        figure >= 0 && !document.descendants(of: figure, named: ["table", "pre", "blockquote"]).isEmpty
    }

    /// The text of the paragraphs inside an element (`p`s, and `div`s written as paragraphs: their
    /// words not in links), and how many of them are long enough to be the article's.
    func paragraphText(in index: Int) -> (length: Int, count: Int) {
        var length = 0, count = 0
        for paragraph in document.descendants(of: index, named: ["p", "div"]) where document[paragraph].name == "p" || isParagraph(paragraph) {
            let (all, linked) = document.textLength(of: paragraph)
            guard all - linked >= 80 else { continue }
            length += all - linked
            count += 1
        }
        return (length, count)
    }

    func isAncestor(_ ancestor: Int, of index: Int) -> Bool {
        var current = document[index].parent
        while current >= 0 {
            if current == ancestor { return true }
            current = document[current].parent
        }
        return false
    }

    /// Inside the chosen containers: link lists, bylines, the title again and empty blocks go.
    mutating func clean(_ roots: [Int]) {
        let normalizedTitle = title.map { PlainTextLine.of($0).lowercased() }
        for root in roots {
            // Deepest first, so a list is judged after its items were.
            for index in document.descendants(of: root).reversed() {
                let node = document.nodes[index]
                guard !node.removed else { continue }
                switch node.name {
                case "h1", "h2", "h3", "h4":
                    let text = document.text(of: index)
                    if ["h1", "h2"].contains(node.name), let normalizedTitle, text.lowercased() == normalizedTitle { document.remove(index) }
                    if text.isEmpty { document.remove(index) }
                    // "Related posts", "You may also like": what follows it in its container is
                    // other articles, and goes with it.
                    if names(index).contains("related") || Self.headsRelated(PlainTextLine.of(text).lowercased()) { removeRelated(from: index) }
                case "ul", "ol", "div", "section", "table", "dl", "header", "p", "span", "li", "article", "figure", "a", "button", "figcaption":
                    let (length, linked) = document.textLength(of: index)
                    let density = length == 0 ? 0 : Double(linked) / Double(length)
                    let names = names(index)
                    // A control's words ("Caption", "Close", "Back to Gallery", "Read More"), a
                    // teaser ending in "Read more", or a gallery or carousel: never the article's.
                    let words = length < 40 ? PlainTextLine.of(document.text(of: index)).lowercased() : ""
                    // (A teaser's own "Read more" link stays for its block to be judged by.)
                    // (A link or span is a control only in a row of controls, or as a label: "comments"
                    // inside a sentence is a word of it.)
                    if length < 40, Self.controlWords.contains(words), !(node.name == "a" && Self.teaserEnds.contains(words)),
                       !["a", "span"].contains(node.name) || words.hasSuffix(":") || document.textLength(of: node.parent).all < 60 {
                        document.remove(index)
                        continue
                    }
                    // "Related: <a>Another story</a>": a pointer to another article, not a sentence of this one.
                    if length < 200, ["p", "div", "li"].contains(node.name), Double(linked) > Double(length) * 0.5 {
                        let opening = PlainTextLine.of(document.text(of: index)).lowercased()
                        if Self.pointers.contains(where: { opening.hasPrefix($0) }) {
                            document.remove(index)
                            continue
                        }
                    }
                    // "You may also like…" written as a line, not a heading: it and what follows go.
                    if length < 40, ["p", "div", "span"].contains(node.name), Self.headsRelated(words) {
                        removeRelated(from: index)
                        continue
                    }
                    if node.name != "p", length < 800, let last = document.descendants(of: index, named: ["a"]).last,
                       Self.teaserEnds.contains(PlainTextLine.of(document.text(of: last)).lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "…».›>→ "))) {
                        document.remove(index)
                        continue
                    }
                    // A photo's caption: the reader shows no pictures, and read aloud between
                    // paragraphs it describes one the listener cannot see.
                    // (A table's or a quote's caption stays: it says what the listener hears next.)
                    if node.name == "figcaption" || (length < 400 && names.contains("caption")), !holdsText(node.parent) {
                        document.remove(index)
                        continue
                    }
                    if ["div", "section", "ul", "figure"].contains(node.name), nameFacts(index).gallery {
                        document.remove(index)
                        continue
                    }
                    guard ["ul", "ol", "div", "section", "table", "dl", "header", "p", "span"].contains(node.name) else { continue }
                    let byline = length < 120 && !names.isEmpty
                        && ["byline", "author", "dateline", "writtenby", "meta", "post-date", "timestamp"].contains { names.contains($0) }
                    if byline {
                        document.remove(index)
                    } else if density > 0.5 && length < 1000 && node.name != "p" {
                        document.remove(index)   // a menu or a list of related links
                    } else if density > 0.2 && node.name != "p" && weight(index) < 0 {
                        document.remove(index)
                    } else if length == 0 && node.name != "table" && document.descendants(of: index, named: ["img"]).isEmpty {
                        document.remove(index)
                    } else if node.name == "div" && length < 100, document.descendants(of: index, named: ["img"]).count > 1,
                              document.descendants(of: index, named: ["p", "figcaption"]).isEmpty {
                        document.remove(index)   // a row of thumbnails
                    }
                default:
                    continue
                }
            }
            // A heading with nothing after it in its container headed what was cleaned away
            // ("Related stories" over a list that is gone).
            for index in document.descendants(of: root, named: ["h2", "h3", "h4", "h5", "h6"]).reversed() {
                let siblings = document.elements(in: document[index].parent)
                if siblings.last == index { document.remove(index) }
            }
        }
    }
}
