import AudioRender
import ArgumentParser
import Foundation
@testable import reverie
import ReverieAPI
import ReverieServer
import Testing

@Suite("Command line")
struct CommandLineTests {
    @Test("serve flags become configuration overrides")
    func serveFlags() throws {
        let command = try Reverie.parseAsRoot(["serve", "--host", "0.0.0.0", "--port", "9001", "--data-dir", "/srv/r",
                                               "--database-url", "postgres://u@h/d", "--web-dir", "/srv/web"])
        let serve = try #require(command as? Serve)
        let overrides = ServerConfig.Overrides(storage: serve.storage, serve: serve.serve)
        #expect(overrides == .init(host: "0.0.0.0", port: 9001, dataDirectory: "/srv/r", databaseURL: "postgres://u@h/d", webDirectory: "/srv/web"))
    }

    @Test("serve without flags leaves every setting to the environment")
    func serveDefaults() throws {
        let serve = try #require(try Reverie.parseAsRoot(["serve"]) as? Serve)
        #expect(ServerConfig.Overrides(storage: serve.storage, serve: serve.serve) == .init())
    }

    @Test("a port out of range is refused before anything starts")
    func badPort() {
        #expect(throws: (any Error).self) { try Reverie.parseAsRoot(["serve", "--port", "70000"]) }
    }

    @Test("user create takes a username and --password-stdin")
    func userCreate() throws {
        let create = try #require(try Reverie.parseAsRoot(["user", "create", "ada", "--password-stdin", "--data-dir", "/tmp/x"]) as? User.Create)
        #expect(create.username == "ada")
        #expect(create.passwordFromStandardInput)
        #expect(create.storage.dataDirectory == "/tmp/x")
    }
}

/// Runs the built `reverie` binary, as a person at a shell would.
@Suite("reverie binary")
struct BinaryTests {
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("reverie")
    }

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    static func run(_ arguments: [String], input: String = "") throws -> Run {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["DATABASE_URL"] = nil
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: output, as: UTF8.self),
                   errors: String(decoding: errors, as: UTF8.self))
    }

    @Test("chapters prints what MediaFormats reads, as text or JSON, and names a file it cannot read")
    func chapters() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let metadata = directory.appendingPathComponent("meta.txt")
        try ";FFMETADATA1\ntitle=Night Book\nartist=Ada\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1200\ntitle=First\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=1200\nEND=2000\ntitle=Second\n"
            .write(to: metadata, atomically: true, encoding: .utf8)
        let book = directory.appendingPathComponent("night.m4b")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.arguments = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=duration=2", "-i", metadata.path, "-map", "0",
                          "-map_metadata", "1", "-map_chapters", "1", "-c:a", "aac", book.path]
        try make.run()
        make.waitUntilExit()
        try #require(make.terminationStatus == 0, "ffmpeg is installed by scripts/bootstrap.sh")

        let text = try Self.run(["chapters", book.path])
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.contains("MP4, 0:00:02.000  Night Book — Ada"))
        #expect(text.output.contains("   2  0:00:01.200  Second"))

        let json = try Self.run(["chapters", "--json", book.path, metadata.path])
        #expect(json.status == 1, "a file that is not audio makes the run fail")
        #expect(json.errors.contains("meta.txt: This is not an audio file we can read"))
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let chapters = try #require(report["chapters"] as? [[String: Any]])
        #expect(chapters.map { $0["title"] as? String } == ["First", "Second"])
        #expect(chapters.map { $0["start"] as? Double } == [0, 1.2])
        #expect(report["format"] as? String == "mp4")
    }

    @Test("feed parse prints a feed's show and episodes, as text or the documented JSON; a private URL and hostile XML are refused")
    func feedParse() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-feed-\(UUID().uuidString).xml")
        defer { try? FileManager.default.removeItem(at: file) }
        try """
        <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:podcast="https://podcastindex.org/namespace/1.0">
        <channel><title>Tea &amp; Owls</title><itunes:author>Ann</itunes:author><link>https://owls.example/</link>
        <item><title>One</title><guid>g1</guid><pubDate>Tue, 03 Jun 2025 09:39:21 GMT</pubDate><itunes:duration>61:02</itunes:duration>
        <enclosure url="HTTPS://cdn.example/1.mp3" type="audio/mpeg" length="12"/><podcast:chapters url="https://cdn.example/1.json"/>
        <podcast:transcript url="https://cdn.example/1.vtt" type="text/vtt"/></item></channel></rss>
        """.write(to: file, atomically: true, encoding: .utf8)
        let text = try Self.run(["feed", "parse", file.path])
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.contains("Tea & Owls — Ann (rss, 1 episode)") && text.output.contains("One  (3 Jun 2025, 1:01:02, chapters, transcript)"))
        let json = try Self.run(["feed", "parse", "--json", file.path])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(Set(report.keys) == ["title", "author", "link", "image", "episodes", "repairs"] && report["image"] is NSNull && (report["repairs"] as? [String]) == [])
        let episode = try #require((report["episodes"] as? [[String: Any]])?.first)
        #expect(Set(episode.keys) == ["title", "guid", "published", "duration", "enclosure", "chapters", "transcripts"])
        #expect(episode["published"] as? String == "2025-06-03T09:39:21Z" && episode["duration"] as? Double == 3662)
        #expect((episode["enclosure"] as? [String: Any])?["url"] as? String == "https://cdn.example/1.mp3")
        #expect((episode["transcripts"] as? [[String: Any]])?.first?["type"] as? String == "text/vtt")

        let private_ = try Self.run(["feed", "parse", "http://127.0.0.1:9/feed.xml"])
        #expect(private_.status != 0 && private_.errors.contains("private address"))
        try #"<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]><rss><channel><title>&x;</title></channel></rss>"#
            .write(to: file, atomically: true, encoding: .utf8)
        let hostile = try Self.run(["feed", "parse", file.path])
        #expect(hostile.status != 0 && hostile.errors.contains("never expands") && !hostile.output.contains("root:"))
    }

    @Test("extract prints a page's article as text or the documented JSON, many pages in one run; a private URL and a missing file are named")
    func extract() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-extract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = folder.appendingPathComponent("page.html"), other = folder.appendingPathComponent("other.html")
        try """
        <html lang="en"><head><title>Owls at Dusk | Night Notes</title><meta name="author" content="Ann"></head><body>
        <nav><a href="/">Home</a> <a href="/about">About</a></nav>
        <article><h1>Owls at Dusk</h1><p>The owls start calling as the light goes, first one and then, from across the valley, another. 🦉</p>
        <p>We sat on the step and counted <b>seven</b> before it was dark, and <a href="/owls">here is how to tell them apart</a>.</p></article>
        </body></html>
        """.write(to: page, atomically: true, encoding: .utf8)
        try "<html><body><p>Another page, a single paragraph long enough to be read on its own as an article.</p></body></html>"
            .write(to: other, atomically: true, encoding: .utf8)
        let text = try Self.run(["extract", "--text", page.path])
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.hasPrefix("The owls start calling") && !text.output.contains("About"))
        let json = try Self.run(["extract", "--json", page.path, other.path])
        let lines = json.output.split(separator: "\n")
        #expect(lines.count == 2)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(Set(report.keys) == ["source", "title", "byline", "siteName", "published", "language", "text", "spans", "chapters"])
        #expect(report["title"] as? String == "Owls at Dusk" && report["byline"] as? String == "Ann" && report["published"] is NSNull)
        let articleText = try #require(report["text"] as? String)
        let bold = try #require((report["spans"] as? [[String: Any]])?.first { $0["style"] as? String == "bold" })
        let units = Array(articleText.utf16), start = try #require(bold["location"] as? Int), length = try #require(bold["length"] as? Int)
        #expect(String(decoding: units[start..<start + length], as: UTF16.self) == "seven", "offsets count UTF-16 units, past the emoji")

        let private_ = try Self.run(["extract", "http://127.0.0.1:9/page.html"])
        #expect(private_.status != 0 && private_.errors.contains("private address"))
        let missing = try Self.run(["extract", folder.appendingPathComponent("nope.html").path, other.path])
        #expect(missing.status == 1 && missing.errors.contains("nope.html") && missing.output.contains("Another page"))
    }

    @Test("library import adds a folder's audio files to the owner's library, skips what is there, and names what it cannot read")
    func libraryImport() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-cli-\(UUID().uuidString)")
        let folder = data.appendingPathComponent("incoming/Album")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        for (name, frequency) in [("02 Second.mp3", 330), ("10 Tenth.mp3", 550)] {
            let make = Process()
            make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            make.arguments = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=1", "-metadata", "title=\(name.dropLast(4))",
                              "-c:a", "libmp3lame", folder.appendingPathComponent(name).path]
            try make.run()
            make.waitUntilExit()
            try #require(make.terminationStatus == 0, "ffmpeg is installed by scripts/bootstrap.sh")
        }
        try Data("not audio".utf8).write(to: folder.appendingPathComponent("03 Broken.mp3"))
        let noOwner = try Self.run(["library", "import", folder.path, "--data-dir", data.path])
        #expect(noOwner.status == 1 && noOwner.errors.contains("reverie user create"))

        _ = try Self.run(["user", "create", "ada", "--password-stdin", "--data-dir", data.path], input: "correct horse\n")
        let first = try Self.run(["library", "import", folder.path, "--data-dir", data.path])
        #expect(first.status == 1, "one file is not audio")
        #expect(first.output == "02 Second.mp3: added as music, “02 Second”\n10 Tenth.mp3: added as music, “10 Tenth”\n", "natural order")
        #expect(first.errors.contains("03 Broken.mp3: This is not an audio file"))
        #expect(first.errors.contains("1 of 3 files could not be imported"))
        let again = try Self.run(["library", "import", folder.appendingPathComponent("10 Tenth.mp3").path, "--data-dir", data.path])
        #expect(again.status == 0 && again.output.contains("already in the library"))
        let stored = try FileManager.default.contentsOfDirectory(atPath: data.appendingPathComponent("media/library").path)
        #expect(stored.count == 2)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("02 Second.mp3").path), "copied, not moved")

        // The folder as one book: its MP3 parts joined, a chapter each, in natural order.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("03 Broken.mp3"))
        let book = try Self.run(["library", "import", folder.path, "--kind", "book", "--data-dir", data.path])
        #expect(book.status == 0, "\(book.errors)")
        #expect(book.output.contains("added as a book, “Album”, 2 chapters"), "\(book.output)")
    }

    @Test("--version prints the version")
    func version() throws {
        let run = try Self.run(["--version"])
        #expect(run.status == 0)
        #expect(run.output.trimmingCharacters(in: .whitespacesAndNewlines) == ReverieVersion.current)
    }

    @Test("user create makes the owner first, then ordinary accounts, and explains refusals")
    func createUsers() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }

        let owner = try Self.run(["user", "create", "Ada", "--password-stdin", "--data-dir", data.path], input: "correct horse\n")
        #expect(owner.status == 0, "\(owner.errors)")
        #expect(owner.output.contains("Created owner account 'ada'."))
        #expect(FileManager.default.fileExists(atPath: data.appendingPathComponent("reverie.sqlite").path))

        let second = try Self.run(["user", "create", "grace", "--data-dir", data.path], input: "another secret\n")
        #expect(second.status == 0, "\(second.errors)")
        #expect(second.output.contains("Created account 'grace'."))

        let weak = try Self.run(["user", "create", "eve", "--password-stdin", "--data-dir", data.path], input: "short\n")
        #expect(weak.status != 0)
        #expect(weak.errors.contains("at least 8 characters"))

        let taken = try Self.run(["user", "create", "ADA", "--password-stdin", "--data-dir", data.path], input: "correct horse\n")
        #expect(taken.status != 0)
        #expect(taken.errors.contains("taken"))
    }

    @Test("user set-password sets a named account's password and names an unknown one")
    func setPassword() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        _ = try Self.run(["user", "create", "ada", "--password-stdin", "--data-dir", data.path], input: "correct horse\n")

        let set = try Self.run(["user", "set-password", "Ada", "--temporary", "--data-dir", data.path], input: "for now only\n")
        #expect(set.status == 0, "\(set.errors)")
        #expect(set.output.contains("Set the password of 'ada'"))
        #expect(set.output.contains("next sign in"))

        let unknown = try Self.run(["user", "set-password", "nobody", "--data-dir", data.path], input: "for now only\n")
        #expect(unknown.status == 1)
        #expect(unknown.errors.contains("No account is named 'nobody'"))
    }

    @Test("speak turns a script into audio, captions and a timeline")
    func speak() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-speak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let audio = directory.appendingPathComponent("out.m4a"), vtt = directory.appendingPathComponent("out.vtt")
        let timeline = directory.appendingPathComponent("out.json")
        let run = try Self.run(["speak", "-", "-o", audio.path, "--captions", vtt.path, "--timeline", timeline.path],
                               input: "An old silent pond (1s)\nA frog jumps in. (2x) (0.5s) Splash!")
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("3 phrases"))
        #expect(run.errors.contains("line 2, column 18"))
        #expect((try Data(contentsOf: audio)).count > 5_000)
        #expect(try String(contentsOf: vtt, encoding: .utf8).hasPrefix("WEBVTT\n"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: timeline)) as? [String: Any]
        #expect((json?["phrases"] as? [Any])?.count == 3)
    }

    @Test("speak with an eSpeak NG voice uses eSpeak NG; an unknown voice is refused with a pointer")
    func speakWithESpeak() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-speak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let timeline = directory.appendingPathComponent("out.json")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let example = root.appendingPathComponent("examples/evening-lake.txt").path
        let run = try Self.run(["speak", example, "-o", directory.appendingPathComponent("out.opus").path,
                                "--voice", "en-gb", "--timeline", timeline.path])
        #expect(run.status == 0, "\(run.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: timeline)) as? [String: Any])
        #expect(json["engine"] as? String == "espeak-ng")
        #expect((json["phrases"] as? [Any])?.count == 15)
        let unknown = try Self.run(["speak", "-", "-o", directory.appendingPathComponent("x.m4a").path, "--voice", "nobody"], input: "Hello.")
        #expect(unknown.status != 0)
        #expect(unknown.errors.contains("reverie voices"))
    }

    @Test("rhymes prints perfect and near rhymes, and JSON for scripts; an unknown word is an error")
    func rhymes() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-rhymes-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let text = try Self.run(["rhymes", "Night!", "--near", "--data-dir", data.path])
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.hasPrefix("night  N AY1 T"))
        #expect(text.output.contains("perfect (") && text.output.contains("light") && text.output.contains("near ("))
        let json = try Self.run(["rhymes", "love", "--json", "--data-dir", data.path])
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(decoded["word"] as? String == "love")
        #expect((decoded["perfect"] as? [String])?.contains("dove") == true)
        #expect((decoded["near"] as? [String]) == [])
        // A word the dictionary lacks gets a guessed pronunciation, and rhymes.
        let slang = try Self.run(["rhymes", "yeet", "--data-dir", data.path])
        #expect(slang.status == 0 && slang.output.contains("Y IY1 T  (not in the dictionary: pronunciation guessed)"))
        #expect(slang.output.contains("feet") || slang.output.contains("street"))
        let nothing = try Self.run(["rhymes", "...", "--data-dir", data.path])
        #expect(nothing.status != 0 && nothing.errors.contains("no letters"))
    }

    @Test("lyrics analyze prints letters, syllables and groups; --json gives the lines and groups")
    func lyricsAnalyze() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-lyrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let lyrics = "Under the moon\nOver the dune\n\nWe sang in the sun\nUntil we were done\n"
        let text = try Self.run(["lyrics", "analyze", "-", "--data-dir", data.path], input: lyrics)
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.hasPrefix("A    4  Under the moon\nA    4  Over the dune\n\nA    5  We sang"))
        #expect(text.output.contains("group 1 [end, UW1 N]: moon (1), dune (2)"))
        let json = try Self.run(["lyrics", "analyze", "-", "--json", "--data-dir", data.path], input: lyrics)
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let lines = try #require(decoded["lines"] as? [[String: Any]])
        #expect(lines.count == 5)
        #expect(lines.map { $0["scheme"] as? String } == ["A", "A", nil, "A", "A"])
        #expect((decoded["groups"] as? [Any])?.count == 2)
        let missing = try Self.run(["lyrics", "analyze", "/nonexistent/song.txt", "--data-dir", data.path])
        // A file that is not there is a failure to say plainly (exit 1), not a usage error (64, with the usage).
        #expect(missing.status == 1, "\(missing.status): \(missing.errors)")
        #expect(missing.errors.contains("Cannot read /nonexistent/song.txt"))
        #expect(!missing.errors.contains("USAGE"), "\(missing.errors)")
    }

    @Test("winddown list prints the sections, every item with a script of its own (none Coming Soon); --json gives every item")
    func windDownList() throws {
        let text = try Self.run(["winddown", "list"])
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.hasPrefix("Yoga Nidra\n  yoga_nidra_5min"))
        #expect(text.output.contains("Complete Yoga Nidra — Guided Voice\n"))
        #expect(text.output.contains("Letting Go — Sarah Moon\n") && !text.output.contains("Coming Soon"))
        let json = try Self.run(["winddown", "list", "--json"])
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let items = try #require(decoded["items"] as? [[String: Any]])
        #expect(items.count == 30 && items.first?["id"] as? String == "yoga_nidra_5min" && items.first?["duration"] as? Int == 300)
    }

    @Test("bedside poems list and meditations list print the presets with their length; --json gives each script")
    func bedsideLists() throws {
        let poems = try Self.run(["bedside", "poems", "list"])
        #expect(poems.status == 0, "\(poems.errors)")
        #expect(poems.output.split(separator: "\n").count == 35)
        #expect(poems.output.contains("The Lake Isle of Innisfree — W. B. Yeats\n"))
        let meditations = try Self.run(["bedside", "meditations", "list"])
        #expect(meditations.output.contains("meditation.night_sky") && meditations.output.contains("Under the Night Sky"))
        let json = try Self.run(["bedside", "meditations", "list", "--json"])
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let pieces = try #require(decoded["pieces"] as? [[String: Any]])
        #expect(pieces.count >= 12 && pieces.allSatisfy { ($0["script"] as? String)?.contains("(") == true && $0["kind"] as? String == "meditation" })
        #expect(try Self.run(["bedside", "sonnets", "list"]).status == 64)
    }

    @Test("winddown render speaks an item ahead of its first play (once), says which and how many; a wrong id or no ids says so")
    func windDownRender() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try Self.run(["winddown", "render", "breathing_478", "--data-dir", data])
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.contains("[1/1] 4-7-8 Breath (5:00)") && first.output.contains("Spoke 1 item"), "\(first.output)")
        let kept = try FileManager.default.contentsOfDirectory(atPath: data + "/cache/sleep").filter { $0.hasSuffix(".m4a") }
        #expect(kept.count == 1)
        // No live file: a running server on the same data may be speaking for a player.
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: data + "/cache/sleep-live")) ?? []).isEmpty)
        let again = try Self.run(["winddown", "render", "breathing_478", "--data-dir", data])
        #expect(again.status == 0 && again.output.contains("Spoke 0 items") && again.output.contains("1 was already made"), "\(again.output)")
        let unknown = try Self.run(["winddown", "render", "no_such_item", "--data-dir", data])
        #expect(unknown.status != 0 && unknown.errors.contains("`reverie winddown list` names them"), "\(unknown.errors)")
        let nothing = try Self.run(["winddown", "render", "--data-dir", data])
        #expect(nothing.status != 0 && nothing.errors.contains("Give --all, or the ids"), "\(nothing.errors)")
    }

    @Test("winddown attach gives a Coming Soon item a file, levelled; detach takes it away; a wrong id or file says so")
    func windDownAttach() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-cli-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let audio = data + "-tone.wav"
        defer { try? FileManager.default.removeItem(atPath: audio) }
        let rate = 22050
        try WAVFile.encode(AudioBuffer(sampleRate: rate, samples: (0..<rate * 8).map { Float(0.05 * sin(Double($0) * 0.09)) }))
            .write(to: URL(fileURLWithPath: audio))
        let attached = try Self.run(["winddown", "attach", "hypnosis_dreams", audio, "--data-dir", data])
        #expect(attached.status == 0, "\(attached.errors)")
        #expect(attached.output.contains("hypnosis_dreams now plays") && attached.output.contains("0:08"))
        let files = try FileManager.default.contentsOfDirectory(atPath: data + "/media/winddown").filter { $0.hasSuffix(".m4a") }
        #expect(files.count == 1)
        let detached = try Self.run(["winddown", "detach", "hypnosis_dreams", "--data-dir", data])
        #expect(detached.status == 0 && detached.output.contains("back to what the catalog gives it"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: data + "/media/winddown").filter { $0.hasSuffix(".m4a") }.isEmpty)
        let again = try Self.run(["winddown", "detach", "hypnosis_dreams", "--data-dir", data])
        #expect(again.status != 0 && again.errors.contains("has no audio of the owner's"))
        let unknown = try Self.run(["winddown", "attach", "no_such_item", audio, "--data-dir", data])
        #expect(unknown.status != 0 && unknown.errors.contains("`reverie winddown list` names them"))
        let notAudio = try Self.run(["winddown", "attach", "hypnosis_dreams", "/etc/hostname", "--data-dir", data])
        #expect(notAudio.status != 0 && notAudio.errors.contains("MP3, M4A, Ogg or WAV"), "\(notAudio.errors)")
    }

    @Test("speak refuses a rate out of range and an unknown format before speaking")
    func speakRefuses() throws {
        let rate = try Self.run(["speak", "-", "-o", "/tmp/x.m4a", "--rate", "2"], input: "hi")
        #expect(rate.status != 0)
        #expect(rate.errors.contains("between 0.8 and 1.2"))
        let format = try Self.run(["speak", "-", "-o", "/tmp/x.doc"], input: "hi")
        #expect(format.status != 0)
        #expect(format.errors.contains(".m4a, .opus, .mp3 or .wav"))
    }

    @Test("voices lists the installed Piper voice")
    func voices() throws {
        let run = try Self.run(["voices"])
        #expect(run.status == 0)
        #expect(run.output.contains("en_US-joe-medium"))
    }
}
