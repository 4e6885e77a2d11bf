import Foundation
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor
import ZIPFoundation

/// A local site articles are saved from: a French news page sent in windows-1252 (its header says
/// so, its meta tag says UTF-8), a chain of redirects, an EPUB, and a page with no article.
enum ArticleSite {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ReaderTests/Fixtures")

    static func start() async throws -> LocalSite {
        let page = try String(contentsOf: fixtures.appendingPathComponent("french-news.html"), encoding: .utf8)
        let latin1 = try #require(page.data(using: .windowsCP1252))
        let book = try ArticleAPITests.epub()
        return try await LocalSite.start { app in
            app.get("news.html") { _ in
                Response(status: .ok, headers: ["Content-Type": "text/html; charset=windows-1252"], body: .init(data: latin1))
            }
            app.get("hop", ":n") { req -> Response in
                let n = req.parameters.get("n").flatMap(Int.init) ?? 0
                return req.redirect(to: n <= 1 ? "/news.html" : "/hop/\(n - 1)")
            }
            app.get("nothing.html") { _ in
                Response(status: .ok, headers: ["Content-Type": "text/html"], body: .init(string: "<html><body><nav><a href='/'>Home</a></nav></body></html>"))
            }
            app.get("book.epub") { _ in
                Response(status: .ok, headers: ["Content-Type": "application/epub+zip"], body: .init(data: book))
            }
        }
    }
}

@Suite("Articles: saved from the web, pasted or uploaded, read with their place kept, spoken chapter by chapter", .serialized)
struct ArticleAPITests {
    /// A two-chapter EPUB 3 book.
    static func epub() throws -> Data {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("article-book-\(UUID().uuidString).epub")
        defer { try? FileManager.default.removeItem(at: url) }
        let archive = try Archive(url: url, accessMode: .create)
        func add(_ path: String, _ text: String) throws {
            let data = Data(text.utf8)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: path == "mimetype" ? .none : .deflate) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        try add("mimetype", "application/epub+zip")
        try add("META-INF/container.xml", #"<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container" version="1.0"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>"#)
        try add("content.opf", """
            <?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Two Tides</dc:title><dc:creator>M. Shore</dc:creator></metadata>
            <manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/><item id="b" href="b.xhtml" media-type="application/xhtml+xml"/></manifest>
            <spine><itemref idref="a"/><itemref idref="b"/></spine></package>
            """)
        try add("nav.xhtml", #"<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol><li><a href="a.xhtml">Morning Tide</a></li><li><a href="b.xhtml">Evening Tide</a></li></ol></nav></body></html>"#)
        try add("a.xhtml", "<html><body><h2>Morning Tide</h2><p>The sea went out <em>slowly</em> over the sand.</p></body></html>")
        try add("b.xhtml", "<html><body><h2>Evening Tide</h2><p>And came back, as it always does, by night.</p></body></html>")
        return try Data(contentsOf: url)
    }

    static func withSite(_ body: (LocalSite) async throws -> Void) async throws {
        let site = try await ArticleSite.start()
        do { try await body(site) } catch { await site.stop(); throw error }
        await site.stop()
    }

    static func saved(_ job: JobInfo, _ client: TestClient, _ cookie: String) async throws -> ArticleInfo {
        let done = try await PodcastAPITests.waitForJob(job.id, client, cookie)
        #expect(done.status == "done", "\(done.message ?? "")")
        let id = try #require(done.itemID)
        return try await client.send(.GET, "/api/articles/\(id)", auth: .cookie(cookie)).decode(ArticleInfo.self)
    }

    @Test("save a page by its URL: fetched through the guard, its charset from the header, redirects followed up to five, then read with its place kept",
          arguments: TestDatabase.all)
    func saveFromWeb(database: TestDatabase) async throws {
        try await Self.withSite { site in
            try await withTestApp(database, adjust: { $0.allowPrivateFetches = true }) { client in
                client.app.jobs.start()
                let ada = try await client.setUpOwner()
                let started = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(url: site.url.appendingPathComponent("hop/5").absoluteString), auth: .cookie(ada))
                #expect(started.status == .accepted, "\(started.text)")
                let article = try await Self.saved(try started.decode(JobInfo.self), client, ada)
                #expect(article.summary.title == "Les veilleurs de nuit du port de Sète")
                #expect(article.summary.source == "Le Courrier du Midi" && article.summary.byline == "Camille Roux" && article.language == "fr")
                #expect(article.summary.sourceURL == site.url.appendingPathComponent("news.html").absoluteString)
                #expect(article.text.contains("À minuit, le port change de visage."), "windows-1252 read as the header says, not as the meta tag")
                #expect(!article.text.contains("Accueil"), "the menu is not the article")
                #expect(article.summary.status == "saved" && article.summary.readingMinutes >= 1 && article.summary.words > 100)
                // Spans lie inside the text; chapters cover it.
                let units = article.text.utf16.count
                #expect(article.spans.allSatisfy { $0.location >= 0 && $0.location + $0.length <= units })
                #expect(article.chapters.last.map { $0.location + $0.length } == units)

                // Six redirects are one too many; a page without an article says so.
                let far = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(url: site.url.appendingPathComponent("hop/6").absoluteString), auth: .cookie(ada)).decode(JobInfo.self)
                let farJob = try await PodcastAPITests.waitForJob(far.id, client, ada)
                #expect(farJob.status == "failed" && (farJob.message ?? "").contains("redirected more than 5 times"), "\(farJob.message ?? "")")
                let empty = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(url: site.url.appendingPathComponent("nothing.html").absoluteString), auth: .cookie(ada)).decode(JobInfo.self)
                let emptyJob = try await PodcastAPITests.waitForJob(empty.id, client, ada)
                #expect(emptyJob.status == "failed" && (emptyJob.message ?? "").contains("No article was found"), "\(emptyJob.message ?? "")")

                // The place: a chapter and UTF-16 units into it; the list shows it in progress.
                let id = article.summary.id
                let moved = try await client.send(.PATCH, "/api/articles/\(id)", json: ArticleUpdateRequest(lastReadChapter: 0, lastReadPosition: 120), auth: .cookie(ada))
                #expect(try moved.decode(ArticleSummary.self).status == "inProgress")
                let list = try await client.send(.GET, "/api/articles", auth: .cookie(ada)).decode(ArticleList.self)
                #expect(list.items.map(\.id) == [id] && list.items[0].lastReadPosition == 120 && list.items[0].fraction > 0)
                let beyond = try await client.send(.PATCH, "/api/articles/\(id)", json: ArticleUpdateRequest(lastReadChapter: 0, lastReadPosition: units + 1), auth: .cookie(ada))
                #expect(beyond.status == .badRequest && beyond.error?.code == "invalid_field")
                let finished = try await client.send(.PATCH, "/api/articles/\(id)", json: ArticleUpdateRequest(finished: true), auth: .cookie(ada)).decode(ArticleSummary.self)
                #expect(finished.status == "finished" && finished.fraction == 1 && finished.finishedAt != nil)
                let again = try await client.send(.PATCH, "/api/articles/\(id)", json: ArticleUpdateRequest(finished: false), auth: .cookie(ada)).decode(ArticleSummary.self)
                #expect(again.status == "saved" && again.lastReadPosition == 0)

                // Someone else sees none of it.
                let bea = try await client.addUser("bea", by: ada)
                #expect(try await client.send(.GET, "/api/articles/\(id)", auth: .cookie(bea)).status == .notFound)
                #expect(try await client.send(.PATCH, "/api/articles/\(id)", json: ArticleUpdateRequest(finished: true), auth: .cookie(bea)).status == .notFound)
                #expect(try await client.send(.DELETE, "/api/articles/\(id)", auth: .cookie(bea)).status == .notFound)
                #expect(try await client.send(.GET, "/api/articles", auth: .cookie(bea)).decode(ArticleList.self).items.isEmpty)
                #expect(try await client.send(.DELETE, "/api/articles/\(id)", auth: .cookie(ada)).status == .noContent)
                #expect(try await client.send(.GET, "/api/articles/\(id)", auth: .cookie(ada)).status == .notFound)
            }
        }
    }

    @Test("the page as the person's browser has it (the bookmarklet): read at once from its document, nothing fetched; a page with no article, a page past 10 MB and an address that is not a web page's are refused", arguments: [TestDatabase.sqlite])
    func pageHandedOver(database: TestDatabase) async throws {
        try await withTestApp(database, maxBodyBytes: 1 << 20) { client in
            let ada = try await client.setUpOwner()
            let story = (1...5).map { "<p>Line \($0) of a story about the night ferry, the gulls behind it, and the lights of the harbour going out one by one.</p>" }.joined()
            let html = "<html><head><title>The Night Ferry</title></head><body><nav><a href=\"/\">Home</a></nav><article>\(story)</article></body></html>"
            // Its address is private (nothing is fetched, so nothing is refused for it).
            let saved = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(url: "http://10.0.0.7/ferry", html: html), auth: .cookie(ada))
            #expect(saved.status == .created, "\(saved.text)")
            let summary = try saved.decode(ArticleSummary.self)
            #expect(summary.title == "The Night Ferry" && summary.kind == "web")
            let article = try await client.send(.GET, "/api/articles/\(summary.id)", auth: .cookie(ada)).decode(ArticleInfo.self)
            #expect(article.text.hasPrefix("Line 1 of a story") && !article.text.contains("Home"))
            #expect(try await client.send(.GET, "/api/jobs", auth: .cookie(ada)).decode(JobList.self).jobs.isEmpty)
            // A page larger than the server's usual body limit still arrives, up to 10 MB.
            let padded = html.replacingOccurrences(of: "</body>", with: "<!--" + String(repeating: "x", count: 2 << 20) + "--></body>")
            #expect(try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(url: "https://example.org/big", html: padded), auth: .cookie(ada)).status == .created)
            let huge = html + String(repeating: " ", count: 10 << 20)
            #expect(try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(url: "https://example.org/huge", html: huge), auth: .cookie(ada)).status == .payloadTooLarge)
            let empty = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(url: "https://example.org/menu", html: "<html><body><nav><a href=\"/\">Home</a></nav></body></html>"), auth: .cookie(ada))
            #expect(empty.status == .unprocessableEntity, "\(empty.text)")
            let notWeb = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(url: "file:///etc/passwd", html: html), auth: .cookie(ada))
            #expect(notWeb.status == .badRequest && notWeb.error?.code == "invalid_url", "\(notWeb.text)")
        }
    }

    @Test("private addresses are refused before any job starts, and addresses that are not web addresses too", arguments: [TestDatabase.sqlite])
    func ssrf(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            for address in ["http://127.0.0.1:8080/admin", "http://10.0.0.7/", "http://[::1]/", "http://169.254.169.254/latest/meta-data/"] {
                let reply = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(url: address), auth: .cookie(ada))
                #expect(reply.status == .badRequest && reply.error?.code == "private_address", "\(address): \(reply.text)")
            }
            for address in ["file:///etc/passwd", "gopher://example.org/", "not a url at all"] {
                let reply = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(url: address), auth: .cookie(ada))
                #expect(reply.status == .badRequest && reply.error?.code == "invalid_url", "\(address): \(reply.text)")
            }
            #expect(try await client.send(.GET, "/api/jobs", auth: .cookie(ada)).decode(JobList.self).jobs.isEmpty)
            let nothing = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(), auth: .cookie(ada))
            #expect(nothing.status == .badRequest && nothing.error?.code == "nothing_to_save")
        }
    }

    @Test("pasted text and uploads (an EPUB whose chapters are its contents, a web page, a text file) become articles; a file that is not what it says is refused at once",
          arguments: TestDatabase.all)
    func pasteAndUpload(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            client.app.jobs.start()
            let ada = try await client.setUpOwner()
            let pasted = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(text: "First thought.\n\nSecond thought, (2s) kept as text.", title: "Notes"), auth: .cookie(ada))
            #expect(pasted.status == .created, "\(pasted.text)")
            let note = try pasted.decode(ArticleSummary.self)
            #expect(note.title == "Notes" && note.kind == "text" && note.source == "Pasted text")

            func upload(_ name: String, _ data: Data) async throws -> TestClient.Reply {
                try await client.send(.POST, "/api/articles/upload", data: data, contentType: "application/octet-stream", auth: .cookie(ada), headers: ["X-File-Name": name])
            }
            let book = try await upload("two-tides.epub", try Self.epub())
            #expect(book.status == .accepted, "\(book.text)")
            let read = try await Self.saved(try book.decode(JobInfo.self), client, ada)
            #expect(read.summary.title == "Two Tides" && read.summary.byline == "M. Shore" && read.summary.kind == "epub")
            #expect(read.chapters.map(\.title) == ["Morning Tide", "Evening Tide"])
            #expect(read.spans.contains { $0.style == "italic" })

            let page = try await upload("tides.html", Data("<html><head><title>Tide tables</title></head><body><article><p>High water at six, low water at noon, and high again by evening, every day of the week.</p></article></body></html>".utf8))
            let html = try await Self.saved(try page.decode(JobInfo.self), client, ada)
            #expect(html.summary.title == "Tide tables" && html.summary.kind == "html")

            let text = try await upload("letter.txt", "Dear friend,\n\nThe tide is high.".data(using: .utf16)!)
            let letter = try await Self.saved(try text.decode(JobInfo.self), client, ada)
            #expect(letter.text.contains("The tide is high.") && letter.summary.kind == "txt")

            let fake = try await upload("report.pdf", Data("this is not a PDF".utf8))
            #expect(fake.status == .unprocessableEntity && fake.error?.code == "unreadable_document")
            #expect(fake.error?.message.contains("named as a PDF but is not one") == true, "\(fake.text)")
            let binary = try await upload("photo.txt", Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00]))
            #expect(binary.status == .unprocessableEntity && binary.error?.message.contains("binary data") == true, "\(binary.text)")
            let notBook = try await upload("novel.epub", Data("plain words".utf8))
            #expect(notBook.status == .unprocessableEntity && notBook.error?.message.contains("named as an EPUB but is not one") == true)

            let list = try await client.send(.GET, "/api/articles", auth: .cookie(ada)).decode(ArticleList.self)
            #expect(list.items.count == 4)
        }
    }

    @Test("a chapter as render segments: each script line speaks a stretch of the text, the first segment short", arguments: [TestDatabase.sqlite])
    func speechSegments(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let paragraphs = (1...12).map { "Paragraph \($0) tells of the tide coming in over the flats (1m) while the birds wait." }
            let made = try await client.send(.POST, "/api/articles", json: ArticleSaveRequest(text: paragraphs.joined(separator: "\n\n"), title: "Flats"), auth: .cookie(ada)).decode(ArticleSummary.self)
            let article = try await client.send(.GET, "/api/articles/\(made.id)", auth: .cookie(ada)).decode(ArticleInfo.self)
            let speech = try await client.send(.GET, "/api/articles/\(made.id)/chapters/0/speech", auth: .cookie(ada)).decode(ArticleSpeechInfo.self)
            let units = Array(article.text.utf16)
            let lines = speech.segments.flatMap(\.lines).map { String(decoding: units[$0.location..<$0.location + $0.length], as: UTF16.self) }
            #expect(lines == paragraphs)
            #expect(speech.segments.count >= 2 && speech.segments[0].lines.count < speech.segments[1].lines.count)
            #expect(speech.segments.allSatisfy { !$0.script.contains("(1m)") && $0.script.contains("[1m]") })
            #expect(try await client.send(.GET, "/api/articles/\(made.id)/chapters/1/speech", auth: .cookie(ada)).status == .notFound)
        }
    }

    @Test("the store answers an article as it was written, keeps only the place it is told to move, and shows each person only their own",
          arguments: TestDatabase.all)
    func storeValues(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            _ = try await client.setUpOwner()
            let ada = try #require(try await FluentUserRepository(database: client.app.db).all().first)
            let user = AuthenticatedUser(id: ada.id, username: ada.username, isOwner: true, tokenID: UUID(), tokenKind: .session,
                                         accountCreatedAt: Date())
            var stranger = user
            stranger.id = UUID()
            let articles = FluentArticleRepository(database: client.app.db)
            let written = ArticleRecord(id: UUID(), title: "Tide tables", source: "Pasted text", sourceURL: nil, byline: "M. Shore",
                                        siteName: nil, published: "2026-11-01", language: "en", kind: "text", text: "High at six. Low at noon.",
                                        textLength: 25, words: 6, spans: #"[{"location":0,"length":4,"style":"bold"}]"#,
                                        chapters: #"[{"title":"Tide tables","location":0,"length":25}]"#, lastReadChapter: 0,
                                        lastReadPosition: 0, finishedAt: nil, createdAt: nil, updatedAt: nil)
            let made = try await articles.create(written, ownerID: user.id)
            #expect(made.createdAt != nil)
            // Dates as the database keeps them (PostgreSQL to the microsecond), the rest exactly as written.
            let found = try #require(try await articles.find(written.id, ownedBy: user))
            var expected = written
            (expected.createdAt, expected.updatedAt) = (found.createdAt, found.updatedAt)
            #expect(found == expected)
            #expect(try await articles.find(written.id, ownedBy: stranger) == nil)
            #expect(try await articles.list(ownedBy: user) == [found.summary])
            #expect(try await articles.list(ownedBy: stranger).isEmpty)

            let finished = Date(timeIntervalSince1970: 1_790_000_000)
            let moved = try #require(try await articles.savePlace(written.id, ownedBy: user, chapter: 0, position: 13, finishedAt: finished))
            expected.lastReadPosition = 13
            expected.finishedAt = finished
            expected.updatedAt = moved.updatedAt
            #expect(moved == expected)
            #expect(try await articles.savePlace(written.id, ownedBy: stranger, chapter: 0, position: 1, finishedAt: nil) == nil)
            #expect(try await articles.find(written.id, ownedBy: user)?.lastReadPosition == 13)
            #expect(try await articles.delete(written.id, ownedBy: stranger) == false)
            #expect(try await articles.delete(written.id, ownedBy: user))
            #expect(try await articles.find(written.id, ownedBy: user) == nil)
        }
    }
}
