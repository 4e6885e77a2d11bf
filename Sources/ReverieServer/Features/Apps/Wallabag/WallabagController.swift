import Foundation
import ReverieAPI
import Vapor

/// The wallabag API v2, so wallabag's apps, browser extensions and share sheets save pages to
/// Reverie's Listen, where they are read and read aloud like any other article.
///
/// An app signs in as the OAuth client made in Settings → Apps (its id and secret) with the
/// person's user name and that app's password (the password grant), then uses bearer tokens
/// (an hour) and refresh tokens (two weeks). Entries are the person's articles: "archived" is
/// finished, "starred" and tags are kept beside them. Entry and tag ids are numbers, as wallabag's
/// apps expect: each comes from its article's id (or the tag's name), so every server gives the same.
struct WallabagController: RouteCollection {
    let apps: Store<any AppRepository>
    let articles: Store<any ArticleRepository>
    let marks: Store<any ArticleMarkRepository>
    let saving: ArticleController
    /// Checks app passwords (with the sign-in throttle).
    let gate: AppGate
    let now: @Sendable () -> Date
    /// The wallabag version this API answers as (its apps check for 2.1.1 or later).
    static let version = "2.6.10"
    static let accessLifetime: TimeInterval = 3600
    static let refreshLifetime: TimeInterval = 14 * 24 * 3600
    static let maxPerPage = 500

    func boot(routes: any RoutesBuilder) throws {
        let routes = routes.grouped(Errors())
        routes.get("oauth", "v2", "token", use: token)
        routes.on(.POST, "oauth", "v2", "token", takes: .file(limit: 1 << 14), use: token)
        let api = routes.grouped("api")
        api.get("version", use: version)
        api.get("info", use: info)
        api.get("entries", use: list)
        api.on(.POST, "entries", takes: .file(limit: 2 * 10 << 20), use: add)
        api.get("entries", "exists", use: exists)
        api.get("entries", ":entry", use: show)
        api.on(.PATCH, "entries", ":entry", takes: .file(limit: 1 << 16), use: update)
        api.delete("entries", ":entry", use: delete)
        api.get("entries", ":entry", "tags", use: entryTags)
        api.on(.POST, "entries", ":entry", "tags", takes: .file(limit: 1 << 16), use: addTags)
        api.delete("entries", ":entry", "tags", ":tag", use: removeTag)
        api.get("tags", use: tags)
    }

    // MARK: - OAuth

    /// `GET` or `POST /oauth/v2/token`: the password grant (the client's id and secret, the
    /// person's user name and the app's password) or the refresh grant; errors as OAuth says.
    func token(req: Request) async throws -> Response {
        let form = try Self.fields(req)
        let grant = form["grant_type"] ?? ""
        guard let clientID = form["client_id"], let clientSecret = form["client_secret"],
              let client = try await apps.on(req).client(id: clientID, secretHash: TokenSecret.hash(clientSecret)) else {
            return try Self.oauthError("invalid_client", "The client id or secret is wrong: make a wallabag app in Reverie's Settings → Apps.")
        }
        let store = apps.on(req)
        switch grant {
        case "password":
            guard let signIn = try await gate.passwordSignIn(username: form["username"] ?? "", password: form["password"] ?? "", kind: .wallabag, req: req),
                  signIn.app.id == client.app.id else {
                return try Self.oauthError("invalid_grant", "Invalid username and password combination: use this app's password from Settings → Apps.")
            }
            return try await issue(for: signIn, req: req)
        case "refresh_token":
            guard let refresh = form["refresh_token"],
                  let signIn = try await store.session(secretHash: TokenSecret.hash(refresh), purpose: .refresh, kind: .wallabag, now: now()),
                  signIn.app.id == client.app.id else {
                return try Self.oauthError("invalid_grant", "The refresh token is unknown or has expired: sign in again.")
            }
            try await store.deleteSession(secretHash: TokenSecret.hash(refresh))
            return try await issue(for: signIn, req: req)
        default:
            return try Self.oauthError("unsupported_grant_type", "grant_type: password or refresh_token.")
        }
    }

    private func issue(for signIn: AppSignIn, req: Request) async throws -> Response {
        let access = AppPasswords.token(), refresh = AppPasswords.token()
        let store = apps.on(req)
        try await store.createSession(for: signIn.app, purpose: .access, secretHash: TokenSecret.hash(access),
                                      expiresAt: now().addingTimeInterval(Self.accessLifetime))
        try await store.createSession(for: signIn.app, purpose: .refresh, secretHash: TokenSecret.hash(refresh),
                                      expiresAt: now().addingTimeInterval(Self.refreshLifetime))
        try? await store.recordUse(signIn.app.id, at: now(), action: "signed in")
        return try Response.json(["access_token": access, "expires_in": Int(Self.accessLifetime), "token_type": "bearer",
                                           "scope": NSNull(), "refresh_token": refresh])
    }

    /// The app and person of a request's bearer token; 401 as wallabag answers it.
    private func signIn(_ req: Request) async throws -> AppSignIn {
        guard let bearer = req.headers.bearerAuthorization?.token,
              let signIn = try await apps.on(req).session(secretHash: TokenSecret.hash(bearer), purpose: .access, kind: .wallabag, now: now()) else {
            throw APIError(.unauthorized, code: "invalid_grant", "The access token is missing, unknown or expired: sign in again.",
                           headers: ["WWW-Authenticate": "Bearer realm=\"Reverie\", error=\"invalid_grant\""])
        }
        return signIn
    }

    private func record(_ signIn: AppSignIn, _ req: Request, _ action: String) async {
        try? await apps.on(req).recordUse(signIn.app.id, at: now(), action: action)
    }

    // MARK: - About

    func version(req: Request) async throws -> Response {
        try Response.json(Self.version)
    }

    func info(req: Request) async throws -> Response {
        try Response.json(["appname": "wallabag", "version": Self.version, "allowed_registration": false])
    }

    // MARK: - Entries

    /// `GET /api/entries`: the person's articles, newest first, filtered and paged as wallabag does.
    func list(req: Request) async throws -> Response {
        let signIn = try await signIn(req)
        let user = signIn.authenticated
        let query = try Self.fields(req)
        let archive = try Self.flag(query["archive"], "archive"), starred = try Self.flag(query["starred"], "starred")
        let page = try Self.number(query["page"], "page", default: 1, range: 1...100_000)
        // 0 is wallabag's default page; more than a page holds (wallabag-client asks for
        // Int.max when it has no terminal to fill) is the largest page.
        let asked = try Self.number(query["perPage"], "perPage", default: 30, range: 0...Int.max)
        let perPage = asked == 0 ? 30 : min(asked, Self.maxPerPage)
        let since = try Self.number(query["since"], "since", default: 0, range: 0...100_000_000_000)
        let wanted = Self.tagList(query["tags"])
        let marks = try await marks.on(req).marks(ownerID: user.id)
        var items = try await articles.on(req).list(ownedBy: user).compactMap { summary -> (ArticleSummary, ArticleMark)? in
            guard let id = UUID(uuidString: summary.id) else { return nil }
            return (summary, marks[id] ?? .none)
        }
        items = items.filter { summary, mark in
            (archive.map { $0 == (summary.finishedAt != nil) } ?? true) && (starred.map { $0 == (mark.starredAt != nil) } ?? true)
                && Self.updated(summary, mark).timeIntervalSince1970 >= Double(since)
                && wanted.allSatisfy { tag in mark.tags.contains { Self.slug($0) == Self.slug(tag) } }
        }
        let ascending = query["order"]?.lowercased() == "asc"
        let sort = query["sort"] ?? "created"
        items.sort { left, right in
            let (a, b) = sort == "updated" ? (Self.updated(left.0, left.1), Self.updated(right.0, right.1))
                : sort == "archived" ? (left.0.finishedAt ?? .distantPast, right.0.finishedAt ?? .distantPast)
                : (left.0.createdAt ?? .distantPast, right.0.createdAt ?? .distantPast)
            return ascending ? a < b : a > b
        }
        let pages = max(1, (items.count + perPage - 1) / perPage)
        let slice = items.dropFirst((page - 1) * perPage).prefix(perPage)
        let full = query["detail"] != "metadata"
        var embedded: [[String: Any]] = []
        for (summary, mark) in slice {
            guard let id = UUID(uuidString: summary.id), let article = try await articles.on(req).find(id, ownedBy: user) else { continue }
            embedded.append(Self.entry(article, mark: mark, username: user.username, content: full))
        }
        func link(_ page: Int) -> [String: String] { ["href": "/api/entries?page=\(page)&perPage=\(perPage)"] }
        var links: [String: Any] = ["self": link(page), "first": link(1), "last": link(pages)]
        if page < pages { links["next"] = link(page + 1) }
        await record(signIn, req, "listed \(embedded.count) \(embedded.count == 1 ? "entry" : "entries")")
        return try Response.json(["page": page, "limit": perPage, "pages": pages, "total": items.count, "_links": links,
                                           "_embedded": ["items": embedded]])
    }

    /// `POST /api/entries` (`url`, and `content` and `title` when the app sends the page as the
    /// person sees it; `archive`, `starred`, `tags`): the page read now, answered as an entry.
    func add(req: Request) async throws -> Response {
        let signIn = try await signIn(req)
        let user = signIn.authenticated
        let form = try Self.fields(req)
        guard let address = form["url"]?.trimmingCharacters(in: .whitespacesAndNewlines), !address.isEmpty else {
            throw APIError(.badRequest, code: "invalid_field", "url: the page's address.")
        }
        let starred = try Self.flag(form["starred"], "starred"), archive = try Self.flag(form["archive"], "archive")
        // The same page again is the same entry, as wallabag keeps it (what is sent with it applies).
        var article: ArticleRecord
        if let found = try await articles.on(req).list(ownedBy: user).first(where: { $0.sourceURL == address }),
           let id = UUID(uuidString: found.id), let saved = try await articles.on(req).find(id, ownedBy: user) {
            article = saved
        } else {
            let title = form["title"]?.trimmingCharacters(in: .whitespacesAndNewlines)
            article = try await saving.saveNow(address: address, html: form["content"], title: title?.isEmpty == false ? String(title!.prefix(500)) : nil,
                                               user: user, req: req)
        }
        var mark = try await marks.on(req).marks(ownerID: user.id)[article.id] ?? .none
        if let starred, starred != (mark.starredAt != nil) { mark.starredAt = starred ? now() : nil }
        for tag in Self.tagList(form["tags"]) where !mark.tags.contains(where: { Self.slug($0) == Self.slug(tag) }) { mark.tags.append(tag) }
        try await marks.on(req).save(mark, article: article.id, ownerID: user.id, now: now())
        if archive == true, article.finishedAt == nil {
            article = try await articles.on(req).savePlace(article.id, ownedBy: user, chapter: 0, position: 0, finishedAt: now()) ?? article
        }
        await record(signIn, req, "saved “\(article.title.prefix(60))”")
        return try await answer(article, user: user, req: req)
    }

    /// `GET /api/entries/exists?url=` (or `urls[]=` for several; `return_id=1` for ids).
    func exists(req: Request) async throws -> Response {
        let signIn = try await signIn(req)
        let saved = try await articles.on(req).list(ownedBy: signIn.authenticated)
        let withID = try req.query.get(String?.self, at: "return_id") == "1"
        func found(_ url: String) -> Any {
            let article = saved.first { $0.sourceURL == url }
            if withID { return article.flatMap { UUID(uuidString: $0.id) }.map(Self.number) ?? NSNull() }
            return article != nil
        }
        if let many = try? req.query.get([String].self, at: "urls"), !many.isEmpty {
            guard many.count <= 1000 else { throw APIError(.badRequest, code: "invalid_field", "urls: at most 1,000 at a time.") }
            return try Response.json(Dictionary(many.map { ($0, found($0)) }, uniquingKeysWith: { a, _ in a }))
        }
        guard let url = try req.query.get(String?.self, at: "url"), !url.isEmpty else {
            throw APIError(.badRequest, code: "invalid_field", "url: the address to look for.")
        }
        return try Response.json(["exists": found(url)])
    }

    func show(req: Request) async throws -> Response {
        let signIn = try await signIn(req)
        return try await answer(try await entry(req, signIn), user: signIn.authenticated, req: req)
    }

    /// `PATCH /api/entries/{id}` (`archive`, `starred`, `tags`): archived is finished.
    func update(req: Request) async throws -> Response {
        let signIn = try await signIn(req)
        let user = signIn.authenticated
        var article = try await entry(req, signIn)
        let form = try Self.fields(req)
        if let archive = try Self.flag(form["archive"], "archive"), archive != (article.finishedAt != nil) {
            article = try await articles.on(req).savePlace(article.id, ownedBy: user, chapter: article.lastReadChapter, position: article.lastReadPosition,
                                                           finishedAt: archive ? now() : nil) ?? article
        }
        var mark = try await marks.on(req).marks(ownerID: user.id)[article.id] ?? .none
        if let starred = try Self.flag(form["starred"], "starred"), starred != (mark.starredAt != nil) { mark.starredAt = starred ? now() : nil }
        if let tags = form["tags"] { mark.tags = Self.tagList(tags) }
        try await marks.on(req).save(mark, article: article.id, ownerID: user.id, now: now())
        await record(signIn, req, "changed “\(article.title.prefix(60))”")
        return try await answer(article, user: user, req: req)
    }

    /// `DELETE /api/entries/{id}`: the entry as it was.
    func delete(req: Request) async throws -> Response {
        let signIn = try await signIn(req)
        let user = signIn.authenticated
        let article = try await entry(req, signIn)
        let mark = try await marks.on(req).marks(ownerID: user.id)[article.id] ?? .none
        guard try await articles.on(req).delete(article.id, ownedBy: user) else { throw APIError.notFound("entry") }
        await record(signIn, req, "deleted “\(article.title.prefix(60))”")
        return try Response.json(Self.entry(article, mark: mark, username: user.username, content: true))
    }

    // MARK: - Tags

    func entryTags(req: Request) async throws -> Response {
        let signIn = try await signIn(req)
        let article = try await entry(req, signIn)
        let mark = try await marks.on(req).marks(ownerID: signIn.app.ownerID)[article.id] ?? .none
        return try Response.json(mark.tags.map(Self.tag))
    }

    /// `POST /api/entries/{id}/tags` (`tags`: comma-separated): added to the entry's.
    func addTags(req: Request) async throws -> Response {
        let signIn = try await signIn(req)
        let user = signIn.authenticated
        let article = try await entry(req, signIn)
        var mark = try await marks.on(req).marks(ownerID: user.id)[article.id] ?? .none
        for tag in Self.tagList(try Self.fields(req)["tags"]) where !mark.tags.contains(where: { Self.slug($0) == Self.slug(tag) }) {
            mark.tags.append(tag)
        }
        guard mark.tags.count <= 100 else { throw APIError(.badRequest, code: "invalid_field", "tags: at most 100 on an entry.") }
        try await marks.on(req).save(mark, article: article.id, ownerID: user.id, now: now())
        return try await answer(article, user: user, req: req)
    }

    /// `DELETE /api/entries/{id}/tags/{tagID}`.
    func removeTag(req: Request) async throws -> Response {
        let signIn = try await signIn(req)
        let user = signIn.authenticated
        let article = try await entry(req, signIn)
        let tagID = Int(req.parameters.get("tag") ?? "")
        var mark = try await marks.on(req).marks(ownerID: user.id)[article.id] ?? .none
        mark.tags.removeAll { Self.tagNumber(Self.slug($0)) == tagID }
        try await marks.on(req).save(mark, article: article.id, ownerID: user.id, now: now())
        return try await answer(article, user: user, req: req)
    }

    /// `GET /api/tags`: every tag on the person's entries.
    func tags(req: Request) async throws -> Response {
        let signIn = try await signIn(req)
        var seen: [String: String] = [:]
        for mark in try await marks.on(req).marks(ownerID: signIn.app.ownerID).values {
            for tag in mark.tags where seen[Self.slug(tag)] == nil { seen[Self.slug(tag)] = tag }
        }
        return try Response.json(seen.values.sorted().map(Self.tag))
    }

    // MARK: -

    /// The entry the address names (by its number), the person's own.
    private func entry(_ req: Request, _ signIn: AppSignIn) async throws -> ArticleRecord {
        guard let text = req.parameters.get("entry"), let number = Int(text), number > 0 else { throw APIError.notFound("entry") }
        let user = signIn.authenticated
        guard let summary = try await articles.on(req).list(ownedBy: user).first(where: { UUID(uuidString: $0.id).map(Self.number) == number }),
              let id = UUID(uuidString: summary.id), let article = try await articles.on(req).find(id, ownedBy: user) else {
            throw APIError.notFound("entry")
        }
        return article
    }

    private func answer(_ article: ArticleRecord, user: AuthenticatedUser, req: Request) async throws -> Response {
        let mark = try await marks.on(req).marks(ownerID: user.id)[article.id] ?? .none
        return try Response.json(Self.entry(article, mark: mark, username: user.username, content: true))
    }

    /// An article as wallabag writes an entry.
    static func entry(_ article: ArticleRecord, mark: ArticleMark, username: String, content: Bool) -> [String: Any] {
        let url = article.sourceURL ?? ""
        let created = article.createdAt ?? Date(timeIntervalSince1970: 0)
        let updated = [created, article.updatedAt, article.finishedAt, mark.starredAt, mark.updatedAt].compactMap { $0 }.max() ?? created
        var entry: [String: Any] = [
            "id": number(article.id), "uid": NSNull(), "title": article.title, "url": url, "given_url": url, "origin_url": NSNull(),
            "hashed_url": sha1(url), "hashed_given_url": sha1(url),
            "is_archived": article.finishedAt != nil ? 1 : 0, "is_starred": mark.starredAt != nil ? 1 : 0, "is_public": false,
            "user_id": 1, "user_name": username, "user_email": "",
            "created_at": date(created), "updated_at": date(updated),
            "archived_at": article.finishedAt.map(date) ?? NSNull(), "starred_at": mark.starredAt.map(date) ?? NSNull(),
            "published_at": NSNull(), "published_by": article.byline.map { [$0] } ?? [],
            "annotations": [], "mimetype": "text/html", "language": article.language ?? NSNull(),
            "reading_time": max(1, Int((Double(article.words) / 200).rounded())),
            "domain_name": URL(string: url)?.host ?? article.source, "preview_picture": NSNull(), "http_status": "200", "headers": NSNull(),
            "tags": mark.tags.map(tag),
            "_links": ["self": ["href": "/api/entries/\(number(article.id))"]],
        ]
        // Always named: with `detail=metadata` it is null, as wallabag gives it.
        entry["content"] = content ? html(article.text) : NSNull()
        return entry
    }

    /// The article's text as HTML paragraphs.
    static func html(_ text: String) -> String {
        text.components(separatedBy: "\n\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
            .map { "<p>" + escaped($0).replacingOccurrences(of: "\n", with: "<br>") + "</p>" }.joined(separator: "\n")
    }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// The entry's number: the first 52 bits of its article's id (a whole number JavaScript keeps exactly), never 0.
    static func number(_ id: UUID) -> Int {
        let bytes = withUnsafeBytes(of: id.uuid) { Array($0.prefix(7)) }
        let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } >> 4
        return Int(max(1, value))
    }

    static func tag(_ label: String) -> [String: Any] {
        ["id": tagNumber(slug(label)), "label": label, "slug": slug(label)]
    }

    static func slug(_ label: String) -> String {
        label.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
    }

    /// A tag's number from its slug (FNV-1a, 52 bits).
    static func tagNumber(_ slug: String) -> Int {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in slug.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return Int(max(1, hash >> 12))
    }

    static func tagList(_ text: String?) -> [String] {
        guard let text else { return [] }
        var seen = Set<String>()
        return text.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces).prefix(100)) }
            .filter { !$0.isEmpty && seen.insert(slug($0)).inserted }
    }

    private static func updated(_ summary: ArticleSummary, _ mark: ArticleMark) -> Date {
        [summary.createdAt, summary.finishedAt, mark.starredAt, mark.updatedAt].compactMap { $0 }.max() ?? .distantPast
    }

    private static func date(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date).replacingOccurrences(of: "Z", with: "+0000")
    }

    private static func sha1(_ text: String) -> String {
        Insecure.SHA1.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// Errors as wallabag's apps read them: `{"error", "error_description"}`, named plain
    /// `application/json` (wallabag-client reads no other).
    struct Errors: AsyncMiddleware {
        func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
            do {
                return try await next.respond(to: request)
            } catch {
                let answer = APIErrorMiddleware.answer(for: error, request: request)
                let response = try Response.json(["error": answer.code, "error_description": answer.message])
                response.status = answer.status
                for (name, value) in answer.headers { response.headers.replaceOrAdd(name: name, value: value) }
                return response
            }
        }
    }

    // MARK: - Reading requests

    /// The request's fields: its query, then its body as a form or JSON (apps send either).
    static func fields(_ req: Request) throws -> [String: String] {
        var fields = form(req.url.query ?? "")
        guard let body = req.body.data, body.readableBytes > 0 else { return fields }
        let data = Data(buffer: body)
        if req.headers.contentType?.subType == "json" || data.first == UInt8(ascii: "{") {
            guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw APIError(.badRequest, code: "invalid_json", "The body is not a JSON object.")
            }
            for (key, value) in object {
                switch value {
                case let text as String: fields[key] = text
                case let number as NSNumber: fields[key] = number.stringValue
                case let list as [Any]: fields[key] = list.compactMap { $0 as? String }.joined(separator: ",")
                default: continue
                }
            }
        } else {
            fields.merge(form(String(decoding: data, as: UTF8.self))) { _, body in body }
        }
        return fields
    }

    /// `a=1&b=two+words` as a form encodes it: `+` is a space, `%XX` a byte, and a field whose
    /// escapes are broken is kept as sent rather than dropped with every other field.
    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let name = decoded(parts[0])
            guard !name.isEmpty else { continue }
            fields[name] = parts.count > 1 ? decoded(parts[1]) : ""
        }
        return fields
    }

    /// 1/0 or true/false; nil when absent.
    static func flag(_ text: String?, _ name: String) throws -> Bool? {
        guard let text, !text.isEmpty else { return nil }
        switch text.lowercased() {
        case "1", "true": return true
        case "0", "false": return false
        default: throw APIError(.badRequest, code: "invalid_field", "\(name): 1 or 0.")
        }
    }

    static func number(_ text: String?, _ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text, !text.isEmpty else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw APIError(.badRequest, code: "invalid_field", "\(name): a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return number
    }

    private static func oauthError(_ code: String, _ description: String) throws -> Response {
        let response = try Response.json(["error": code, "error_description": description])
        response.status = code == "invalid_client" ? .unauthorized : .badRequest
        return response
    }
}
