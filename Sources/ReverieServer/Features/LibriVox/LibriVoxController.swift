import Foundation
import ReverieAPI
import Vapor

extension LibriVoxSearchResult: Content {}
extension LibriVoxBookInfo: Content {}

/// LibriVox in Listen: search its catalog, and add a book (downloaded in the background as a
/// job, its sections joined into one file whose chapters are the sections, with their readers).
struct LibriVoxController: RouteCollection {
    let base: URL
    let client: GuardedHTTPClient
    let jobs: JobQueue
    /// The largest section relayed.
    let maxBytes: Int
    /// Books as the catalog last described them, so each Range request of a section streamed
    /// does not ask LibriVox again (shared with Up Next through `LibriVoxFeature.controller`).
    let books: Recent<Int, LibriVoxBookInfo>

    func boot(routes: any RoutesBuilder) throws {
        let librivox = routes.grouped("api", "librivox")
        librivox.get("search", use: search)
        librivox.post("books", use: add)
        librivox.get("books", ":bookID", use: book)
        librivox.get("books", ":bookID", "sections", ":number", "audio", use: sectionAudio)
    }

    /// `GET /api/librivox/books/{bookID}/sections/{number}/audio`: a section streamed from
    /// LibriVox through the guarded client, with Range passed on, so a book plays before (or
    /// instead of) being downloaded.
    func sectionAudio(req: Request) async throws -> Response {
        _ = try req.user
        guard let id = req.parameters.get("bookID", as: Int.self), id > 0, let number = req.parameters.get("number", as: Int.self) else {
            throw APIError.notFound("LibriVox section")
        }
        let book = try await cached(id, req)
        guard let section = book?.sections.first(where: { $0.number == number }), let url = URL(string: section.listenURL) else {
            throw APIError.notFound("LibriVox section")
        }
        return try await client.relay(url, for: req, maxBytes: maxBytes)
    }

    /// `GET /api/librivox/books/{bookID}`: the book as the catalog describes it, its sections to
    /// stream (a LibriVox book in Up Next plays from this).
    func book(req: Request) async throws -> LibriVoxBookInfo {
        _ = try req.user
        guard let id = req.parameters.get("bookID", as: Int.self), id > 0, let book = try await cached(id, req) else {
            throw APIError.notFound("LibriVox book")
        }
        return book
    }

    func cached(_ id: Int, _ req: Request) async throws -> LibriVoxBookInfo? {
        if let book = books.value(for: id) { return book }
        let generation = books.generation
        guard let book = try await catalog.book(id: id) else { return nil }
        books.store(book, for: id, readAt: generation)
        return book
    }

    /// `GET /api/librivox/search?q=TEXT[&by=title|author]`.
    func search(req: Request) async throws -> LibriVoxSearchResult {
        _ = try req.user
        let text = (try req.queryString("q", maximumLength: 100) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw APIError(.badRequest, code: "invalid_field", "q: what to search for, 1 to 100 characters.") }
        let by = try req.queryString("by", maximumLength: 10) ?? "title"
        guard let field = LibriVoxCatalog.Field(rawValue: by) else {
            throw APIError(.badRequest, code: "invalid_field", "by: title or author.")
        }
        return LibriVoxSearchResult(books: try await catalog.search(text, by: field))
    }

    /// `POST /api/librivox/books` `{"id": 47}`: 202 with the job that downloads it.
    func add(req: Request) async throws -> Response {
        let user = try req.user
        let body = try req.content.decode(LibriVoxAddRequest.self)
        guard body.id > 0 else { throw APIError(.badRequest, code: "invalid_field", "id: a LibriVox book id, as the search gives it.") }
        let book = try await cached(body.id, req)
        guard let book else { throw APIError(.notFound, code: "not_found", "LibriVox has no book with id \(body.id).") }
        guard !book.sections.isEmpty else {
            throw APIError(.unprocessableEntity, code: "no_sections", "“\(book.title)” has no recordings on LibriVox yet.")
        }
        let job = try await jobs.enqueue(LibriVoxDownload(bookID: book.id), title: book.title, ownerID: user.id)
        return try await JobController.info(job).encodeResponse(status: .accepted, for: req)
    }

    var catalog: LibriVoxCatalog {
        LibriVoxCatalog(base: base, client: client)
    }
}
