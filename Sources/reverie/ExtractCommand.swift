import Archives
import ArgumentParser
import Foundation
import Reader
import ReverieServer

/// `reverie extract FILE|URL... [--text|--json]`: the article Reverie reads out of a page.
struct ExtractCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Show the article Reverie reads out of a web page (an HTML file, or an http(s) URL fetched through the guarded client), a text file, an EPUB or a PDF.",
        discussion: "Files are told apart by their bytes. A URL on a private or loopback address is refused unless REVERIE_ALLOW_PRIVATE_FETCH=1. Pages are read at most 10 MB, files 200 MB."
    )

    @Argument(help: "HTML, text, EPUB or PDF files, or http(s) URLs, read in turn in one process.")
    var sources: [String]

    @Flag(help: "Print only the article's plain text (what the voice reads).")
    var text = false

    @Flag(help: #"Print one JSON object per page, one per line: {"source", "title", "byline", "siteName", "published", "language", "text", "spans": [{"location", "length", "style", "url", "level"}], "chapters": [{"title", "location", "length"}]}; locations and lengths in UTF-16 code units of "text"."#)
    var json = false

    func validate() throws {
        if text && json { throw ValidationError("Choose --text or --json, not both.") }
    }

    /// The JSON line for an article: every key present (null when the page says nothing).
    struct Line: Encodable {
        let article: ExtractedArticle
        enum Keys: String, CodingKey { case source, title, byline, siteName, published, language, text, spans, chapters }
        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(article.source, forKey: .source)
            try container.encode(article.title, forKey: .title)
            try container.encode(article.byline, forKey: .byline)
            try container.encode(article.siteName, forKey: .siteName)
            try container.encode(article.published, forKey: .published)
            try container.encode(article.language, forKey: .language)
            try container.encode(article.text, forKey: .text)
            try container.encode(article.spans, forKey: .spans)
            try container.encode(article.chapters, forKey: .chapters)
        }
    }

    func run() async throws {
        guard !sources.isEmpty else { throw CommandFailure("Name an HTML file or URL.") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var failed = false
        for source in sources {
            do {
                let article = try await extract(source)
                if json {
                    print(String(decoding: try encoder.encode(Line(article: article)), as: UTF8.self))
                } else if text {
                    print(article.text)
                } else {
                    let facts = [article.byline, article.siteName, article.published].compactMap { $0 }
                    print("\(article.title)\(facts.isEmpty ? "" : " (\(facts.joined(separator: ", ")))")")
                    print("\(article.text.split(whereSeparator: { $0.isWhitespace }).count) words, \(article.chapters.count) chapter\(article.chapters.count == 1 ? "" : "s"), \(article.spans.count) styled stretches")
                    print()
                    print(article.text)
                }
            } catch let error as CommandFailure {
                FileHandle.standardError.write(Data("\(error.description)\n".utf8))
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }

    func extract(_ source: String) async throws -> ExtractedArticle {
        do {
            if let answer = try await OutsideSource.fetch(source, maxBytes: Documents.maximumPageBytes,
                                                           accept: "text/html, application/xhtml+xml;q=0.9, */*;q=0.5") {
                let name = answer.url.lastPathComponent.isEmpty ? (answer.url.host ?? "page") : answer.url.lastPathComponent
                return try await Documents.read(answer.data, name: name, contentType: answer.contentType, url: answer.url).article
            }
            let file = URL(fileURLWithPath: source)
            guard let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? Int else {
                throw CommandFailure("\(source): no such file, or it cannot be read.")
            }
            guard size <= Documents.maximumDocumentBytes else {
                throw CommandFailure("\(source): over \(Documents.maximumDocumentBytes >> 20) MB, too large to read.")
            }
            return try await Documents.read(file, name: file.lastPathComponent).article
        } catch let error as ReaderError {
            throw CommandFailure("\(source): \(error.description)")
        } catch let error as ArchiveError {
            throw CommandFailure("\(source): \(error.description)")
        } catch let error as CommandFailure {
            throw error
        } catch {
            throw CommandFailure("\(source): no such file, or it cannot be read.")
        }
    }
}
