import Crypto
import Foundation
import ReverieAPI
import Rhymes
import Speech
import Vapor

extension LyricsAnalysis: Content {}
extension RhymeSuggestions: Content {}
extension WordRhymes: Content {}

/// The rhyme engine of one server, loaded from its cache directory once, on first use or while
/// the server warms up (indexing the dictionary takes a moment the first time; later starts map
/// the cached index). Whoever asks while it loads waits for the same load. `configure` makes one
/// and hands it to the features that rhyme.
actor RhymesProvider {
    /// Where the dictionary's index is kept (`<data>/cache/rhymes`).
    let cacheDirectory: URL
    /// Told when loading fails, for health.
    private let readiness: Readiness
    private var loading: Task<RhymeEngine, any Error>?

    init(cacheDirectory: URL, readiness: Readiness) {
        self.cacheDirectory = cacheDirectory
        self.readiness = readiness
    }

    /// The engine. A failed load is kept for health and answered as 503 `rhymes_unavailable`;
    /// the warm-up records a successful one, so requests pay nothing for it.
    func engine() async throws -> RhymeEngine {
        do {
            return try await load()
        } catch let error as RhymesError {
            readiness.setRhymes(.init(state: .failed, detail: error.description))
            throw error
        }
    }

    /// The offline pack (`OfflineRhymes`), gzipped, with its entity tag: made once per server.
    struct OfflinePack: Sendable {
        var gzip: [UInt8]
        var eTag: String
    }
    private var packing: Task<OfflinePack, any Error>?

    func offlinePack() async throws -> OfflinePack {
        if let packing { return try await packing.value }
        let engine = try await engine()
        let task = Task.detached { () throws -> OfflinePack in
            let text = Data(OfflineRhymes.text(of: engine.dictionary).utf8)
            guard let gzip = Gzip.compress(text) else {
                throw APIError(.internalServerError, code: "rhymes_unavailable", "The offline rhymes could not be compressed; try again.")
            }
            let digest = SHA256.hash(data: gzip).prefix(12).map { String(format: "%02x", $0) }.joined()
            return OfflinePack(gzip: gzip, eTag: "\"rhymes-\(OfflineRhymes.version)-\(digest)\"")
        }
        packing = task
        do {
            return try await task.value
        } catch {
            packing = nil
            throw error
        }
    }

    private func load() async throws -> RhymeEngine {
        if let loading { return try await loading.value }
        let task = Task.detached { [cacheDirectory] in try RhymeEngine.installed(cacheDirectory: cacheDirectory, guess: ESpeakPhonemes.arpabet(for:)) }
        loading = task
        do {
            return try await task.value
        } catch {
            loading = nil   // try again next time (the bootstrap may have run meanwhile)
            throw error
        }
    }
}

/// Rhymes for the editor: analysis of a text, rhymes of a word, suggestions at the caret.
struct RhymesController: RouteCollection {
    let rhymes: RhymesProvider
    let threadPool: NIOThreadPool

    /// Characters of text analysed at once: an anthology of about 50,000 lines, which takes
    /// about a second (analysis is linear in the text). A song saved in Write holds at most
    /// `CompositionController.maximumLyrics`.
    static let maximumText = 2_000_000
    /// The request body that carries it, JSON-escaped.
    static let maximumBody: ByteCount = "8mb"

    func boot(routes: any RoutesBuilder) throws {
        let rhymes = routes.grouped("api", "rhymes")
        rhymes.on(.POST, "analyze", takes: .json(limit: Self.maximumBody.value), use: analyze)
        rhymes.on(.POST, "suggestions", takes: .json(limit: Self.maximumBody.value), use: suggestions)
        rhymes.get(":word", use: word)
        routes.get("api", "offline", "rhymes", use: offline)
    }

    /// `GET /api/offline/rhymes`: the pack a device keeps to rhyme offline, gzipped as it is
    /// stored (`application/gzip`, never `Content-Encoding`: the device keeps it compressed).
    /// `If-None-Match` with the pack's tag answers 304, so a device checks for a new one cheaply.
    func offline(req: Request) async throws -> Response {
        _ = try req.user
        let pack = try await rhymes.offlinePack()
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .eTag, value: pack.eTag)
        headers.replaceOrAdd(name: .cacheControl, value: "private, no-cache")
        if let match = req.headers.first(name: .ifNoneMatch),
           match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == pack.eTag }) {
            return Response(status: .notModified, headers: headers)
        }
        headers.contentType = HTTPMediaType(type: "application", subType: "gzip")
        headers.replaceOrAdd(name: "X-Reverie-Rhymes-Version", value: String(OfflineRhymes.version))
        return Response(status: .ok, headers: headers, body: .init(buffer: ByteBuffer(bytes: pack.gzip)))
    }

    func analyze(req: Request) async throws -> LyricsAnalysis {
        _ = try req.user
        // Lyrics as the editor holds them, stray control characters and all: analysed, never stored.
        let body = try req.content.decode(RhymesAnalyzeRequest.self, using: JSONDecoder())
        try Self.check(body.text)
        let engine = try await rhymes.engine()
        // Off the event loop: a long text takes a moment that other requests should not wait for.
        return try await threadPool.runIfActive { engine.analyze(body.text) }
    }

    func suggestions(req: Request) async throws -> RhymeSuggestions {
        _ = try req.user
        let body = try req.content.decode(RhymeSuggestionsRequest.self, using: JSONDecoder())
        try Self.check(body.text)
        guard (0...body.text.utf16.count).contains(body.caret) else {
            throw APIError(.badRequest, code: "invalid_field", "caret: must be 0 to \(body.text.utf16.count) (a UTF-16 offset in text).")
        }
        let engine = try await rhymes.engine()
        return try await threadPool.runIfActive { engine.suggestions(for: body.text, caret: body.caret) }
    }

    /// `GET /api/rhymes/{word}?near=true`.
    func word(req: Request) async throws -> WordRhymes {
        _ = try req.user
        let raw = req.parameters.get("word") ?? ""
        let near = try req.queryBoolean("near") ?? false
        guard raw.count <= 100 else {
            throw APIError(.badRequest, code: "invalid_field", "word: at most 100 characters.")
        }
        guard let rhymes = try await rhymes.engine().rhymes(of: raw, near: near) else {
            throw APIError(.badRequest, code: "not_a_word", "“\(raw)” has no letters to pronounce.")
        }
        return rhymes
    }

    static func check(_ text: String) throws {
        guard text.count <= maximumText else {
            throw APIError(.badRequest, code: "invalid_field", "text: at most \(maximumText) characters.")
        }
    }
}
