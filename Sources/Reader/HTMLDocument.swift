import CReverieXML
import Foundation

/// An HTML page read by libxml2's HTML parser (recovering from the mistakes real pages make, the
/// network off, no external entity ever loaded) into plain Swift values: every node in one array,
/// children by index, so a page of any depth is walked without recursion and a node is removed by
/// a flag.
public struct HTMLDocument: Sendable {
    public struct Node: Sendable {
        public enum Kind: Sendable { case element, text }
        public var kind: Kind
        /// Lower-case tag name; "" for text.
        public var name: String
        public var attributes: [String: String]
        /// Text of a text node; "" for an element.
        public var text: String
        public var parent: Int
        public var children: [Int]
        public var removed = false
    }

    /// Elements nested deeper than this are read as if they were children of the last one kept.
    public static let maximumDepth = 256
    /// Nodes in one page.
    public static let maximumNodes = 1_000_000

    public private(set) var nodes: [Node]
    /// The root `html` element (index 0).
    public var root: Int { 0 }

    /// Reads `data`; `encoding` names its character set when the caller knows it (an HTTP header),
    /// else the page's own meta tag or byte-order mark decides, and UTF-8 without either.
    public init(_ data: Data, encoding: String? = nil) throws {
        guard !data.isEmpty else { throw ReaderError.empty }
        guard data.count <= Int(Int32.max) else { throw ReaderError.tooLarge }
        reverie_xml_quiet()
        let options = Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue
                            | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_COMPACT.rawValue)
        let document: htmlDocPtr? = data.withUnsafeBytes { raw in
            htmlReadMemory(raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(data.count), nil, encoding, options)
        }
        guard let document else { throw ReaderError.unreadable("the page could not be read as HTML") }
        defer { xmlFreeDoc(document) }
        nodes = [Node(kind: .element, name: "html", attributes: [:], text: "", parent: -1, children: [])]
        var top = xmlDocGetRootElement(document)
        // A page without an <html> (a fragment) still has its elements as siblings of the root.
        if let first = top, String(cString: first.pointee.name).lowercased() == "html" {
            nodes[0].attributes = Self.attributes(of: first)
            top = first.pointee.children
        } else {
            top = document.pointee.children.map { $0 }
        }
        // Depth-first with an explicit stack of (libxml2 node, our parent index, depth).
        var stack: [(xmlNodePtr, Int, Int)] = []
        var sibling = top
        var pending: [(xmlNodePtr, Int, Int)] = []
        while let node = sibling { pending.append((node, 0, 1)); sibling = node.pointee.next }
        stack.append(contentsOf: pending.reversed())
        while let (node, parent, depth) = stack.popLast() {
            guard nodes.count < Self.maximumNodes else { throw ReaderError.tooLarge }
            switch node.pointee.type {
            case XML_ELEMENT_NODE:
                let name = String(cString: node.pointee.name).lowercased()
                var container = parent
                if depth <= Self.maximumDepth {
                    nodes.append(Node(kind: .element, name: name, attributes: Self.attributes(of: node), text: "", parent: parent, children: []))
                    container = nodes.count - 1
                    nodes[parent].children.append(container)
                }
                var child = node.pointee.children
                pending.removeAll(keepingCapacity: true)
                while let next = child { pending.append((next, container, depth + 1)); child = next.pointee.next }
                stack.append(contentsOf: pending.reversed())
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                guard let content = node.pointee.content else { continue }
                let text = String(cString: content)
                guard !text.isEmpty else { continue }
                // Adjacent text (an element dropped for depth, split text) is joined.
                if let last = nodes[parent].children.last, nodes[last].kind == .text {
                    nodes[last].text += text
                } else {
                    nodes.append(Node(kind: .text, name: "", attributes: [:], text: text, parent: parent, children: []))
                    nodes[parent].children.append(nodes.count - 1)
                }
            default:
                continue   // comments, processing instructions, document types
            }
        }
    }

    private static func attributes(of node: xmlNodePtr) -> [String: String] {
        var values: [String: String] = [:]
        var attribute = node.pointee.properties
        while let current = attribute {
            defer { attribute = current.pointee.next }
            guard let name = current.pointee.name else { continue }
            let key = String(cString: name).lowercased()
            guard values[key] == nil else { continue }
            var text = ""
            var child = current.pointee.children
            while let part = child {
                if let content = part.pointee.content { text += String(cString: content) }
                child = part.pointee.next
            }
            values[key] = text
        }
        return values
    }

    public subscript(index: Int) -> Node { nodes[index] }

    public mutating func remove(_ index: Int) { nodes[index].removed = true }

    /// The element children of `index` that are still there.
    public func elements(in index: Int) -> [Int] { nodes[index].children.filter { nodes[$0].kind == .element && !nodes[$0].removed } }

    /// Every element under `index` (itself excluded) still there, in document order, named one
    /// of `names` when given.
    public func descendants(of index: Int, named names: Set<String>? = nil) -> [Int] {
        var found: [Int] = []
        var stack = Array(nodes[index].children.reversed())
        while let next = stack.popLast() {
            guard nodes[next].kind == .element, !nodes[next].removed else { continue }
            if names.map({ $0.contains(nodes[next].name) }) ?? true { found.append(next) }
            stack.append(contentsOf: nodes[next].children.reversed())
        }
        return found
    }

    /// The first element under `index` (or itself) named `name`.
    public func first(_ name: String, in index: Int = 0) -> Int? {
        if nodes[index].name == name { return index }
        return descendants(of: index, named: [name]).first
    }

    /// The text under `index`, whitespace runs made one space, trimmed.
    public func text(of index: Int) -> String {
        var parts: [String] = []
        var stack = [index]
        while let next = stack.popLast() {
            guard !nodes[next].removed else { continue }
            if nodes[next].kind == .text { parts.append(nodes[next].text) } else { stack.append(contentsOf: nodes[next].children.reversed()) }
        }
        return PlainTextLine.of(parts.joined())
    }

    /// Characters of text under `index` (whitespace runs counted once), and those inside links.
    public func textLength(of index: Int) -> (all: Int, linked: Int) {
        var all = 0, linked = 0
        var stack: [(Int, Bool)] = [(index, nodes[index].name == "a")]
        while let (next, inLink) = stack.popLast() {
            guard !nodes[next].removed else { continue }
            if nodes[next].kind == .text {
                var count = 0, space = true
                for scalar in nodes[next].text.unicodeScalars {
                    let isSpace = PlainTextLine.isSpace(scalar)
                    if !isSpace || !space { count += 1 }
                    space = isSpace
                }
                all += count
                if inLink { linked += count }
            } else {
                for child in nodes[next].children { stack.append((child, inLink || nodes[child].name == "a")) }
            }
        }
        return (all, linked)
    }
}

/// Why a page or document could not be read.
public enum ReaderError: Error, Equatable, CustomStringConvertible {
    case empty
    case tooLarge
    case unreadable(String)
    case noArticle

    public var description: String {
        switch self {
        case .empty: "The page is empty."
        case .tooLarge: "The page is too large to read (over \(HTMLDocument.maximumNodes) elements or 2 GB)."
        case let .unreadable(reason): "The page could not be read: \(reason)."
        case .noArticle: "No article was found on the page: it holds too little text to read aloud."
        }
    }
}
