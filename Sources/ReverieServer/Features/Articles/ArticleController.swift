import Foundation
import Reader
import ReverieAPI
import Vapor

extension ArticleSummary: Content {}
extension ArticleList: Content {}
extension ArticleInfo: Content {}
extension ArticleSpeechInfo: Content {}

/// Listen's articles: saved from a URL (a job through the guarded client), pasted text, or an
/// uploaded web page, text, EPUB or PDF (a job); read with their formatting, listened to chapter
/// by chapter through the speech pipeline, and resumed where the person left off.
struct ArticleController: RouteCollection {
    let articles: Store<any ArticleRepository>
    let media: MediaFiles
    let client: GuardedHTTPClient
    let maxUploadBytes: Int
    let now: @Sendable () -> Date
    let jobs: JobQueue
    /// Pasted text at most this long (a long book is an upload).
    static let maxPastedCharacters = 2_000_000

    func boot(routes: any RoutesBuilder) throws {
        let articles = routes.grouped("api", "articles")
        articles.get(use: list)
        // A page's whole document may come with it (the bookmarklet): up to Documents' page cap.
        // (Room for JSON's escaping, which can make a page's text larger than the page.)
        articles.on(.POST, takes: .json(limit: 2 * Documents.maximumPageBytes + (64 << 10)), use: save)
        articles.on(.POST, "upload", takes: .streamed, use: upload)
        articles.get(":articleID", use: show)
        articles.patch(":articleID", use: update)
        articles.delete(":articleID", use: delete)
        articles.get(":articleID", "chapters", ":chapter", "speech", use: speech)
    }

    /// `GET /api/articles`: newest first.
    func list(req: Request) async throws -> ArticleList {
        ArticleList(items: try await articles.on(req).list(ownedBy: try req.user))
    }

    /// `POST /api/articles`: `{url}` starts an import job (202 with the job); `{text, title}`
    /// saves the text at once (201 with the article).
    func save(req: Request) async throws -> Response {
        let user = try req.user
        // A page's HTML as the browser serialised it may hold control characters: read as sent
        // (the reader keeps only text), not refused as a typed field would be.
        let body = try req.content.decode(ArticleSaveRequest.self, using: JSONDecoder())
        for (field, value) in [("url", body.url), ("title", body.title)] where value?.unicodeScalars.contains(where: CheckedJSONDecoder.isControl) == true {
            throw APIError(.badRequest, code: "invalid_field", "\(field): control characters are not allowed in text.")
        }
        if let address = body.url?.trimmingCharacters(in: .whitespacesAndNewlines), !address.isEmpty,
           let html = body.html, !html.isEmpty {
            let saved = try await saveNow(address: address, html: html, user: user, req: req)
            return try await saved.summary.encodeResponse(status: .created, for: req)
        }
        if let address = body.url?.trimmingCharacters(in: .whitespacesAndNewlines), !address.isEmpty {
            guard address.count <= 4_000, let url = URL(string: address) else { throw OutsideFetchError.badURL(address) }
            _ = try await client.check(url)
            let job = try await jobs.enqueue(ArticleImport(url: url.absoluteString), title: url.host ?? "Article", ownerID: user.id)
            return try await JobController.info(job).encodeResponse(status: .accepted, for: req)
        }
        guard let text = body.text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError(.badRequest, code: "nothing_to_save", "Give a web address (url) or some text (text) to save.")
        }
        guard text.count <= Self.maxPastedCharacters else {
            throw APIError(.payloadTooLarge, code: "text_too_long", "The text has \(text.count) characters; paste at most \(Self.maxPastedCharacters), or upload it as a file.")
        }
        let title = body.title?.trimmingCharacters(in: .whitespacesAndNewlines)
        var article: ExtractedArticle
        do {
            let named = title?.isEmpty == false
            article = try Documents.plainText(Data(text.utf8), name: named ? title! : "Pasted text", findTitle: !named)
        } catch let error as ReaderError {
            throw error.answered(lead: "The text")
        }
        if let title, !title.isEmpty { article.title = title }
        var record = ArticleRecord(article, kind: "text", sourceURL: nil)
        record.source = "Pasted text"
        let saved = try await articles.on(req).create(record, ownerID: user.id)
        return try await saved.summary.encodeResponse(status: .created, for: req)
    }

    /// A web page saved at once: read from `html` when the client sends the page as the person
    /// sees it (nothing fetched), else fetched and read as the import job does; `title`, when
    /// given, names it instead of the page's own.
    func saveNow(address: String, html: String?, title: String? = nil, user: AuthenticatedUser, req: Request) async throws -> ArticleRecord {
        guard address.count <= 4_000, let url = URL(string: address), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw OutsideFetchError.badURL(address)
        }
        guard let html, !html.isEmpty else {
            var read = try await ArticleImport.fetch(url.absoluteString, job: JobContext(id: UUID(), ownerID: user.id, report: { _, _ in }), client: client)
            if let title { read.article.title = title }
            return try await articles.on(req).create(ArticleRecord(read.article, kind: read.kind, sourceURL: read.url), ownerID: user.id)
        }
        guard html.utf8.count <= Documents.maximumPageBytes else {
            throw APIError(.payloadTooLarge, code: "page_too_large", "The page is larger than \(Documents.maximumPageBytes >> 20) MB; save its address instead.")
        }
        let page = Data(html.utf8)
        var article: ExtractedArticle
        do {
            article = try await req.application.threadPool.runIfActive { try Reader.extract(html: page, url: url, source: url.absoluteString) }
        } catch let error as ReaderError {
            throw error.answered(lead: url.host ?? "The page")
        }
        if let title { article.title = title }
        return try await articles.on(req).create(ArticleRecord(article, kind: "web", sourceURL: url.absoluteString), ownerID: user.id)
    }

    /// `POST /api/articles/upload`: the file as the body (`X-File-Name` names it); 202 with the job.
    func upload(req: Request) async throws -> Response {
        let user = try req.user
        let received = try await media.receive(req, limit: min(maxUploadBytes, Documents.maximumDocumentBytes))
        let name = received.originalName ?? "Document"
        // Told at once when the bytes are not what the name says; the job reads the rest.
        let head = (try? FileHandle(forReadingFrom: received.file)).flatMap { handle in defer { try? handle.close() }; return try? handle.read(upToCount: 4096) } ?? Data()
        do {
            _ = try Documents.kind(of: head, name: name)
        } catch let error as ReaderError {
            try? FileManager.default.removeItem(at: received.file)
            throw error.answered(lead: name)
        }
        let job = try await jobs.enqueue(ArticleImport(file: received.file.lastPathComponent, name: name), title: name, ownerID: user.id)
        return try await JobController.info(job).encodeResponse(status: .accepted, for: req)
    }

    /// `GET /api/articles/{id}`: the text, its spans and chapters, and where the person is.
    func show(req: Request) async throws -> ArticleInfo {
        let article = try await requested(req)
        return ArticleInfo(summary: article.summary, siteName: article.siteName, published: article.published, language: article.language,
                           text: article.text, spans: article.decodedSpans, chapters: article.decodedChapters)
    }

    /// `PATCH /api/articles/{id}`: the place (chapter, and UTF-16 units into it), or finished.
    func update(req: Request) async throws -> ArticleSummary {
        let article = try await requested(req)
        let body = try req.content.decode(ArticleUpdateRequest.self)
        let chapters = article.decodedChapters
        var (chapter, position, finishedAt) = (article.lastReadChapter, article.lastReadPosition, article.finishedAt)
        if body.lastReadChapter != nil || body.lastReadPosition != nil {
            chapter = body.lastReadChapter ?? article.lastReadChapter
            guard chapters.indices.contains(chapter) else {
                throw APIError(.badRequest, code: "invalid_field", "lastReadChapter: must be from 0 to \(chapters.count - 1).")
            }
            position = body.lastReadPosition ?? 0
            guard (0...chapters[chapter].length).contains(position) else {
                throw APIError(.badRequest, code: "invalid_field", "lastReadPosition: must be from 0 to \(chapters[chapter].length), the chapter's length in UTF-16 units.")
            }
        }
        if let finished = body.finished {
            finishedAt = finished ? (article.finishedAt ?? now()) : nil
            if !finished, body.lastReadChapter == nil { (chapter, position) = (0, 0) }
        }
        guard let saved = try await articles.on(req).savePlace(article.id, ownedBy: try req.user, chapter: chapter, position: position,
                                                                        finishedAt: finishedAt) else { throw APIError.notFound("article") }
        return saved.summary
    }

    /// `DELETE /api/articles/{id}`.
    func delete(req: Request) async throws -> HTTPStatus {
        let id = try req.uuidParameter("articleID", naming: "article")
        guard try await articles.on(req).delete(id, ownedBy: try req.user) else { throw APIError.notFound("article") }
        return .noContent
    }

    /// `GET /api/articles/{id}/chapters/{n}/speech`: the chapter as render segments.
    func speech(req: Request) async throws -> ArticleSpeechInfo {
        let article = try await requested(req)
        let chapters = article.decodedChapters
        guard let text = req.parameters.get("chapter"), let index = Int(text), chapters.indices.contains(index) else {
            throw APIError.notFound("chapter")
        }
        let chapter = chapters[index]
        let segments = ArticleSpeech.segments(of: article.text, in: chapter.location..<chapter.location + chapter.length)
        return ArticleSpeechInfo(chapter: index, segments: segments.map { segment in
            .init(script: segment.script, lines: segment.lines.map { .init(location: $0.location, length: $0.length) })
        })
    }

    private func requested(_ req: Request) async throws -> ArticleRecord {
        let id = try req.uuidParameter("articleID", naming: "article")
        guard let article = try await articles.on(req).find(id, ownedBy: try req.user) else { throw APIError.notFound("article") }
        return article
    }
}
