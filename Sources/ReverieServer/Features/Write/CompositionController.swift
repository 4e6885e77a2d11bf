import Fluent
import Foundation
import Reader
import Rhymes
import ReverieAPI
import Vapor

extension Composition: Content {}
extension CompositionSummary: Content {}
extension CompositionConflict: Content {}

/// Songs being written: list and search, create, open, save with a version check, delete and restore.
struct CompositionController: RouteCollection {
    let compositions: Store<any CompositionRepository>
    static let maximumTitle = 200
    static let maximumLyrics = 100_000

    /// Analyses the lyrics kept with each version and printed on the PDF sheet.
    let rhymes: RhymesProvider
    let threadPool: NIOThreadPool
    let now: @Sendable () -> Date

    func boot(routes: any RoutesBuilder) throws {
        let compositions = routes.grouped("api", "compositions")
        compositions.get(use: list)
        compositions.post(use: create)
        compositions.get("whole", use: whole)
        compositions.get(":compositionID", use: show)
        compositions.put(":compositionID", use: save)
        compositions.delete(":compositionID", use: delete)
        compositions.post(":compositionID", "restore", use: restore)
        compositions.get(":compositionID", "export", use: export)
        compositions.on(.POST, "import", takes: .file(limit: 1 << 20), use: importText)
    }

    /// Newest edit first; `?q=` keeps those whose title or lyrics have words starting with every
    /// word of the query (any case), with a snippet around the hit.
    func list(req: Request) async throws -> [CompositionSummary] {
        let user = try req.user
        let query = try req.queryString("q", maximumLength: 500) ?? ""
        let words = Self.queryWords(query)
        return try await compositions.on(req).listings(matching: words, ownedBy: user).map { row in
            CompositionSummary(id: row.id, title: row.title, version: row.version, updatedAt: row.updatedAt,
                               snippet: Self.snippet(row.lyrics, words: words))
        }
    }

    /// `GET /api/compositions/whole`: every song whole (not its rhyme analysis), newest edit
    /// first, in one answer — for a device that keeps its own copy when sync is off. Reading
    /// them so opens none of them.
    func whole(req: Request) async throws -> [Composition] {
        try await compositions.on(req).all(ownedBy: req.user).map { song in
            var song = song
            song.rhymeAnalysisCache = nil
            return song
        }
    }

    func create(req: Request) async throws -> Response {
        let user = try req.user
        let input = try Self.validated(try req.content.decode(CompositionInput.self))
        let repository = compositions.on(req)
        // Made with the device's id before (a retry, another tab): that song, not a second one.
        if let id = input.id, let made = try await repository.find(id, ownedBy: user) { return try Self.respond(made, status: .ok) }
        do {
            let song = try await repository.create(id: input.id, title: input.title, lyrics: input.lyrics, themeOverride: input.themeOverride?.rawValue,
                                                   conflictOf: nil, ownedBy: user, at: now())
            return try Self.respond(song, status: .created)
        } catch let error as any DatabaseError where error.isConstraintFailure {
            // Made at the same moment by another request with the same id: that one is it.
            if let id = input.id, let made = try await repository.find(id, ownedBy: user) { return try Self.respond(made, status: .ok) }
            throw APIError(.conflict, code: "id_taken", "That id names another song; make the song again with a new id.")
        }
    }

    /// The composition; opening it is remembered (`lastOpenedAt`). The rhyme analysis of its
    /// lyrics comes along: made on the first open of each version (not on every autosave) and kept.
    func show(req: Request) async throws -> Response {
        let user = try req.user
        let id = try req.uuidParameter("compositionID", naming: "composition")
        let repository = compositions.on(req)
        try await repository.markOpened(id, ownedBy: user, at: now())
        guard var song = try await repository.find(id, ownedBy: user) else { throw APIError.notFound("composition") }
        if song.rhymeAnalysisCache == nil, let analysis = await analysis(of: song.lyrics) {
            try await repository.setAnalysisCache(id, analysis, forVersion: song.version, ownedBy: user)
            song.rhymeAnalysisCache = analysis
        }
        return try Self.respond(song, status: .ok)
    }

    /// Saves an edit. `If-Match` carries the version it was made from; when another save came
    /// first, the answer is 412 with what is saved now, and this edit kept as a conflict copy.
    func save(req: Request) async throws -> Response {
        let user = try req.user
        let id = try req.uuidParameter("compositionID", naming: "composition")
        let input = try Self.validated(try req.content.decode(CompositionInput.self))
        guard let header = req.headers.first(name: .ifMatch) else {
            throw APIError(.preconditionRequired, code: "if_match_required",
                           "Send If-Match with the version you edited (the ETag you were given), so no one's edit is overwritten.")
        }
        guard let version = Self.version(fromETag: header) else {
            throw APIError(.badRequest, code: "invalid_if_match", "If-Match should be the ETag you were given, like \"3\".")
        }
        let now = self.now()
        let repository = compositions.on(req)
        if let saved = try await repository.update(id, title: input.title, lyrics: input.lyrics, themeOverride: input.themeOverride?.rawValue,
                                                   fromVersion: version, ownedBy: user, at: now) {
            return try Self.respond(saved, status: .ok)
        }
        guard let current = try await repository.find(id, ownedBy: user) else { throw APIError.notFound("composition") }
        let copy = try await repository.create(id: nil, title: Self.conflictTitle(input.title), lyrics: input.lyrics,
                                               themeOverride: input.themeOverride?.rawValue, conflictOf: id, ownedBy: user, at: now)
        let conflict = CompositionConflict(
            error: .init(code: "version_conflict",
                         message: "This song was saved elsewhere (version \(current.version)) after version \(version) you edited. Your edit is kept as “\(copy.title)”."),
            current: current, conflictCopy: copy)
        let response = Response(status: .preconditionFailed)
        try response.content.encode(conflict)
        response.headers.replaceOrAdd(name: .eTag, value: "\"\(current.version)\"")
        return response
    }

    func delete(req: Request) async throws -> HTTPStatus {
        let id = try req.uuidParameter("compositionID", naming: "composition")
        guard try await compositions.on(req).delete(id, ownedBy: req.user, at: now()) else {
            throw APIError.notFound("composition")
        }
        return .noContent
    }

    /// Undo for a delete.
    func restore(req: Request) async throws -> Response {
        let id = try req.uuidParameter("compositionID", naming: "composition")
        guard let song = try await compositions.on(req).restore(id, ownedBy: req.user) else {
            throw APIError(.notFound, code: "not_found", "No deleted composition with that id.")
        }
        return try Self.respond(song, status: .ok)
    }

    /// `GET …/export?format=txt|pdf`: the song as plain text (the title, a blank line, the
    /// lyrics), or as a printable lyric sheet with scheme letters and syllables in the margin.
    func export(req: Request) async throws -> Response {
        let user = try req.user
        let id = try req.uuidParameter("compositionID", naming: "composition")
        let format = try req.queryString("format", maximumLength: 10) ?? "txt"
        guard ["txt", "pdf"].contains(format) else {
            throw APIError(.badRequest, code: "invalid_field", "format: txt or pdf.")
        }
        guard let song = try await compositions.on(req).find(id, ownedBy: user) else { throw APIError.notFound("composition") }
        let name = Self.fileName(song.title) + "." + format
        if format == "txt" {
            return .download(.init(string: LyricSheet.text(title: song.title, lyrics: song.lyrics)),
                             type: HTTPMediaType(type: "text", subType: "plain", parameters: ["charset": "utf-8"]), name: name)
        }
        // The analysis kept with this version of the lyrics, else made now.
        let kept = song.rhymeAnalysisCache.flatMap { try? JSONDecoder().decode(LyricsAnalysis.self, from: Data($0.utf8)) }
        let engine = kept == nil ? try await rhymes.engine() : nil
        let (title, lyrics) = (song.title, song.lyrics)
        let pdf = try await threadPool.runIfActive {
            LyricSheet.pdf(title: title, analysis: kept ?? engine!.analyze(lyrics))
        }
        return .download(.init(data: pdf), type: HTTPMediaType(type: "application", subType: "pdf"), name: name)
    }

    /// `POST /api/compositions/import`: a text file as the body (`X-File-Name` names it) becomes a
    /// song: its name the title, its text (any encoding) the lyrics.
    func importText(req: Request) async throws -> Response {
        let user = try req.user
        guard let body = req.body.data, body.readableBytes > 0 else {
            throw APIError(.badRequest, code: "empty_upload", "The file is empty: send the text file as the request body.")
        }
        let data = Data(body.readableBytesView)
        let name = req.headers.first(name: "X-File-Name").map { ($0.removingPercentEncoding ?? $0).split(separator: "/").last.map(String.init) ?? "" } ?? ""
        guard (try? Documents.kind(of: data, name: name.isEmpty ? "song.txt" : name)) == .txt else {
            throw APIError(.unprocessableEntity, code: "not_text", "“\(name.isEmpty ? "The file" : name)” is not a plain text file; Write imports .txt files.")
        }
        // A file's stray control characters (a PDF's, a terminal's) are left out: the editor could
        // not save the song again with them.
        let text = CheckedJSONDecoder.withoutControls(Documents.decode(data)).replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let title = CheckedJSONDecoder.withoutControls((name as NSString).deletingPathExtension)
        let input = try Self.validated(CompositionInput(title: String(title.prefix(Self.maximumTitle)), lyrics: text.trimmingCharacters(in: .newlines)))
        let song = try await compositions.on(req).create(id: nil, title: input.title, lyrics: input.lyrics, themeOverride: nil,
                                                                  conflictOf: nil, ownedBy: user, at: now())
        return try Self.respond(song, status: .created)
    }

    /// A title as a file name: letters, digits, spaces and dashes kept.
    static func fileName(_ title: String) -> String {
        let kept = title.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" ? Character($0) : " " }
        let name = String(kept).split(separator: " ").joined(separator: " ")
        return name.isEmpty ? "song" : String(name.prefix(80))
    }

    // MARK: - Helpers

    static func validated(_ input: CompositionInput) throws -> CompositionInput {
        var input = input
        input.title = input.title.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: " ")
        if input.title.isEmpty { input.title = "Untitled" }
        guard input.title.count <= maximumTitle else {
            throw APIError(.badRequest, code: "invalid_field", "title: at most \(maximumTitle) characters.")
        }
        guard input.lyrics.count <= maximumLyrics else {
            throw APIError(.badRequest, code: "invalid_field", "lyrics: at most \(maximumLyrics) characters; split the song.")
        }
        return input
    }

    /// The rhyme analysis of lyrics as JSON, to keep with them; nil when rhymes are unavailable.
    /// Encoded like every answer (`POST /api/rhymes/analyze` gives the same JSON).
    func analysis(of lyrics: String) async -> String? {
        guard let engine = try? await rhymes.engine() else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(engine.analyze(lyrics))).map { String(decoding: $0, as: UTF8.self) }
    }

    static func conflictTitle(_ title: String) -> String {
        String((title + " (conflict copy)").prefix(maximumTitle))
    }

    /// `"3"`, `W/"3"` or `3` → 3.
    static func version(fromETag text: String) -> Int? {
        var value = text.trimmingCharacters(in: .whitespaces)
        if value.hasPrefix("W/") { value.removeFirst(2) }
        return Int(value.trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
    }

    static func respond(_ song: Composition, status: HTTPStatus) throws -> Response {
        let response = Response(status: status)
        try response.content.encode(song)
        response.headers.replaceOrAdd(name: .eTag, value: "\"\(song.version)\"")
        return response
    }

    /// Query words: lower-case runs of letters and digits, at most eight.
    static func queryWords(_ query: String) -> [String] {
        Array(query.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init).prefix(8))
    }

    /// Around the first hit in the lyrics (a word starting with a query word); else the first
    /// non-empty line. At most about 90 characters. Every song in a list gets one, so lines are
    /// read one at a time (by scalars, not characters) and the search stops at the first answer.
    static func snippet(_ lyrics: String, words: [String]) -> String {
        for word in words {
            for line in TextLines(lyrics) {
                let lower = line.lowercased()
                var searchStart = lower.startIndex
                while let range = lower[searchStart...].firstRange(of: word) {
                    let before = range.lowerBound == lower.startIndex ? nil : lower[lower.index(before: range.lowerBound)]
                    if !(before?.isLetter ?? false || before?.isNumber ?? false) {
                        return shorten(line, around: lower.distance(from: lower.startIndex, to: range.lowerBound))
                    }
                    searchStart = range.upperBound
                }
            }
        }
        return shorten(TextLines(lyrics).first { !$0.isEmpty } ?? "", around: 0)
    }

    static func shorten(_ line: Substring, around offset: Int, width: Int = 90) -> String {
        let count = line.count
        guard count > width else { return String(line) }
        let start = max(0, min(offset - width / 3, count - width))
        let from = line.index(line.startIndex, offsetBy: start), to = line.index(from, offsetBy: width)
        return (start > 0 ? "…" : "") + TextLines.trimmed(line[from..<to]) + (to < line.endIndex ? "…" : "")
    }
}

/// A text's lines, trimmed of spaces, one at a time: split where `Character.isNewline` would
/// (LF, CR, CR LF, VT, FF, NEL, U+2028, U+2029), found by scalars, which is many times cheaper
/// than splitting the whole text into characters.
struct TextLines: Sequence, IteratorProtocol {
    private let text: String
    private var position: String.Index

    init(_ text: String) {
        self.text = text
        position = text.startIndex
    }

    mutating func next() -> Substring? {
        guard position < text.endIndex else { return nil }
        let scalars = text.unicodeScalars
        var end = position
        while end < text.endIndex, !Self.isNewline(scalars[end]) { end = scalars.index(after: end) }
        let line = text[position..<end]
        position = end
        if position < text.endIndex {
            let brk = scalars[position]
            position = scalars.index(after: position)
            if brk == "\r", position < text.endIndex, scalars[position] == "\n" { position = scalars.index(after: position) }
        }
        return Self.trimmed(line)
    }

    static func isNewline(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }

    /// Without leading and trailing spaces and tabs (what `.whitespaces` trims).
    static func trimmed(_ line: Substring) -> Substring {
        let scalars = line.unicodeScalars
        var start = scalars.startIndex, end = scalars.endIndex
        while start < end, scalars[start].properties.isWhitespace, !isNewline(scalars[start]) { start = scalars.index(after: start) }
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace, !isNewline(scalars[scalars.index(before: end)]) {
            end = scalars.index(before: end)
        }
        return line[start..<end]
    }
}
