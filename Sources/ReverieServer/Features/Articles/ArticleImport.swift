import Foundation
import Reader
import ReverieAPI
import Vapor

/// The job that makes an article: a page fetched through the guarded client (at most five
/// redirects, 10 MB, its character set from the header, then the page's meta tag, then its
/// byte-order mark), or a file uploaded to `<data>/media/.incoming` (a web page, text, EPUB or
/// PDF, told apart by its bytes), read by the `Reader` engine and saved.
struct ArticleImport: Job {
    static let kind = JobKind.articleImport

    /// A page to fetch…
    var url: String?
    /// …or an uploaded file: its scratch name under `.incoming`, and the name it came with.
    var file: String?
    var name: String?

    struct Services: Sendable {
        let articles: Store<any ArticleRepository>
        let client: GuardedHTTPClient
        /// Where uploads wait (`scratch`).
        let config: ServerConfig
    }

    static func scratch(_ name: String, _ config: ServerConfig) -> URL? {
        // Only names this server made (a UUID), so a payload can never point elsewhere.
        guard UUID(uuidString: name) != nil else { return nil }
        return config.mediaDirectory(".incoming").appendingPathComponent(name)
    }

    func run(_ job: JobContext, _ services: Services) async throws -> JobOutput {
        let payload = self
        let read: (article: ExtractedArticle, kind: String, url: String?)
        if let address = payload.url {
            read = try await Self.fetch(address, job: job, client: services.client)
        } else if let name = payload.file, let file = Self.scratch(name, services.config) {
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw ArticleError.uploadGone
            }
            await job.report(0.1, "Reading \(payload.name ?? "the file")…")
            do {
                let result = try await Self.reading(payload.name ?? "Document", job: job) { progress in
                    try await Documents.read(file, name: payload.name ?? "Document", progress: progress)
                }
                read = (result.article, result.kind.rawValue, nil)
            } catch is CancellationError {
                throw CancellationError()   // the server is stopping: the file stays for the next attempt
            } catch {
                try? FileManager.default.removeItem(at: file)
                throw error
            }
            try? FileManager.default.removeItem(at: file)
        } else {
            throw ArticleError.nothingToRead
        }
        await job.report(0.95, "Saving…")
        let article = try await services.articles.outside.create(ArticleRecord(read.article, kind: read.kind, sourceURL: read.url), ownerID: job.ownerID)
        return JobOutput(itemID: article.id)
    }

    /// A page from the web: HTML, or a PDF, EPUB or text file someone linked to.
    static func fetch(_ address: String, job: JobContext, client: GuardedHTTPClient) async throws -> (article: ExtractedArticle, kind: String, url: String?) {
        guard let url = URL(string: address) else { throw OutsideFetchError.badURL(address) }
        await job.report(0.05, "Fetching \(url.host ?? "the page")…")
        let answer = try await client.get(url, accept: "text/html, application/xhtml+xml;q=0.9, text/plain;q=0.8, application/pdf;q=0.5, application/epub+zip;q=0.5",
                                          maxBytes: Documents.maximumPageBytes)
        await job.report(0.5, "Finding the article…")
        let name = answer.url.lastPathComponent.isEmpty ? (answer.url.host ?? "page") : answer.url.lastPathComponent
        let result = try await reading(answer.url.host ?? "The page", job: job) { progress in
            try await Documents.read(Data(answer.body.readableBytesView), name: name, contentType: answer.headers.first(name: .contentType),
                                     url: answer.url, progress: progress)
        }
        return (result.article, result.kind == .html ? "web" : result.kind.rawValue, answer.url.absoluteString)
    }

    /// Reads with the engine, a book's pages told as the job's progress, its errors naming what was read.
    static func reading(_ name: String, job: JobContext,
                        _ read: ((Int, Int) async -> Void) async throws -> (article: ExtractedArticle, kind: Documents.Kind))
        async throws -> (article: ExtractedArticle, kind: Documents.Kind) {
        do {
            return try await read { done, total in
                guard total > 0 else { return }
                await job.report(0.1 + 0.8 * Double(done) / Double(total), "Reading page \(min(done + 1, total)) of \(total)…")
            }
        } catch let error as ReaderError {
            throw error.answered(lead: name)
        }
    }
}

extension JobKind {
    /// An article read from an address or an uploaded file.
    static let articleImport = JobKind(rawValue: "article.import")
}
