import Foundation
@testable import Reader
import Testing

@Suite("Plain text and PDF documents")
struct DocumentTests {
    @Test("text files in UTF-8, UTF-16 with and without a byte-order mark, and Windows-1252 read the same")
    func encodings() throws {
        let words = "Café au lait, naïve façade — “quoted” and 50 €."
        #expect(Documents.decode(Data(words.utf8)) == words)
        #expect(Documents.decode(Data([0xEF, 0xBB, 0xBF]) + Data(words.utf8)) == words)
        #expect(Documents.decode(Data([0xFF, 0xFE]) + words.data(using: .utf16LittleEndian)!) == words)
        #expect(Documents.decode(Data([0xFE, 0xFF]) + words.data(using: .utf16BigEndian)!) == words)
        #expect(Documents.decode(words.data(using: .utf16LittleEndian)!) == words)
        #expect(Documents.decode(words.data(using: .windowsCP1252)!) == words)
        // ASCII in UTF-16 without a mark is valid UTF-8 as well, a NUL after every letter (Fuzz/corpus/text/utf16le-no-mark.txt).
        let ascii = "Slow river, carry me home"
        #expect(Documents.decode(ascii.data(using: .utf16LittleEndian)!) == ascii)
        #expect(Documents.decode(ascii.data(using: .utf16BigEndian)!) == ascii)
        // Damaged UTF-16 keeps the rest of its text (Fuzz/corpus/text/crash-utf16-lone-surrogate).
        #expect(Documents.decode(Data([0xFF, 0xFE]) + ascii.data(using: .utf16LittleEndian)! + Data([0x00, 0xDC])) == ascii + "\u{FFFD}")
        #expect(Documents.decode(Data([0xFE, 0xFF]) + ascii.data(using: .utf16BigEndian)! + Data([0x41])) == ascii + "\u{FFFD}")
    }

    @Test("a text file: its title line, wrapped lines joined and broken words mended, verse kept by line, chapters at chapter lines")
    func plainText() throws {
        let wrapped = String(repeating: "The night train crossed the long bridge over the river, ", count: 4)
        let book = """
            The Night Train

            CHAPTER I

            The night train crossed the long bridge over the river while everyone on board was
            asleep, except for the conductor, who walked the corridor with a lamp and a wonder-
            ful patience for the small noises of the carriages.

            Roses at the window,
            rain upon the glass,
            all the sleepers dreaming
            as the stations pass.

            CHAPTER II

            \(wrapped)
            """
        let article = try Documents.plainText(Data(book.utf8), name: "night-train.txt")
        #expect(article.title == "The Night Train")
        #expect(article.text.contains("was asleep, except for the conductor, who walked the corridor with a lamp and a wonderful patience"))
        #expect(article.text.contains("Roses at the window,\nrain upon the glass,\nall the sleepers dreaming"))
        let headings = article.spans.filter { $0.style == .heading }.map { String(decoding: Array(article.text.utf16)[$0.location..<$0.location + $0.length], as: UTF16.self) }
        #expect(headings == ["CHAPTER I", "CHAPTER II"])
        let untitled = try Documents.plainText(Data("Just one paragraph of text, nothing more.".utf8), name: "note.txt")
        #expect(untitled.title == "note" && untitled.chapters.count == 1)
        #expect(throws: ReaderError.empty) { try Documents.plainText(Data(), name: "empty.txt") }
    }

    /// A PDF made by reportlab (from .venv): `pages` of lines, each page with a running header
    /// and a page number.
    func makePDF(_ pages: [[String]], title: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reader-pdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("doc.pdf")
        let script = """
            import json, sys
            from reportlab.pdfgen import canvas
            pages, title, out = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3]
            c = canvas.Canvas(out)
            c.setTitle(title)
            for number, lines in enumerate(pages, 1):
                c.setFont("Helvetica", 9)
                c.drawString(72, 800, "The Quiet Almanac - Winter Edition")
                c.setFont("Helvetica", 11)
                y = 760
                for line in lines:
                    if line:
                        c.drawString(72, y, line)
                    y -= 15
                c.setFont("Helvetica", 9)
                c.drawString(290, 40, str(number))
                c.showPage()
            c.save()
            """
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = root.appendingPathComponent(".venv/bin/python")
        process.arguments = ["-c", script, String(decoding: try JSONEncoder().encode(pages), as: UTF8.self), title, file.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "reportlab could not make the PDF")
        return file
    }

    @Test("a PDF: pages joined into paragraphs (one runs over the page break), broken words mended, running headers and page numbers dropped")
    func pdf() async throws {
        let file = try makePDF([
            ["Snowfall", "", "The first snow of the year came quietly in the night, and by morning the whole valley",
             "was white and still. Even the river seemed to move more slowly under its thin new",
             "ice, and the birds kept to the hedges.", "", "In the village the bakers were up before anyone else, and the smell of bread",
             "drifted down the lanes as the children walked to school, leaving the first foot-"],
            ["prints in the fresh snow and arguing about whose were the deepest.", "", "By evening the clouds had cleared and the stars were out."],
            ["Frost", "", "The frost that followed was sharp enough to sing on the windows at dawn."],
        ], title: "The Quiet Almanac")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let article = try await Documents.pdf(file, name: "almanac.pdf")
        #expect(article.title == "The Quiet Almanac")
        #expect(article.text.contains("whole valley was white and still."))
        #expect(article.text.contains("leaving the first footprints in the fresh snow"), "\(article.text)")
        #expect(!article.text.contains("Winter Edition"))
        #expect(!article.text.contains("\n2\n") && !article.text.hasSuffix("3"))
        #expect(article.spans.filter { $0.style == .heading }.count == 2)
        let notPDF = FileManager.default.temporaryDirectory.appendingPathComponent("not-\(UUID().uuidString).pdf")
        try Data("<html>not a pdf</html>".utf8).write(to: notPDF)
        defer { try? FileManager.default.removeItem(at: notPDF) }
        await #expect(throws: ReaderError.unreadable("the file is not a PDF")) { try await Documents.pdf(notPDF, name: "x.pdf") }
    }
}
