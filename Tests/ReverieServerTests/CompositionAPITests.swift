import Foundation
import Rhymes
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor

extension TestClient {
    func compose(_ title: String, _ lyrics: String, as user: String) async throws -> Composition {
        let reply = try await send(.POST, "/api/compositions", json: CompositionInput(title: title, lyrics: lyrics), auth: .cookie(user))
        #expect(reply.status == .created, "\(reply.text)")
        return try reply.decode(Composition.self)
    }
}

@Suite("Compositions API")
struct CompositionAPITests {
    @Test("create, open, save with the version, list newest first with a first-line snippet", arguments: TestDatabase.all)
    func lifecycle(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            #expect(try await client.send(.GET, "/api/compositions", auth: .cookie(ada)).decode([CompositionSummary].self).isEmpty)
            let first = try await client.compose("River Song", "\n\nThe river keeps on running\nDown to the sea", as: ada)
            #expect(first.version == 1 && first.title == "River Song")
            client.clock.advance(by: 60)
            let second = try await client.compose("  ", "Under the moon", as: ada)
            #expect(second.title == "Untitled")

            let opened = try await client.send(.GET, "/api/compositions/\(first.id)", auth: .cookie(ada))
            #expect(opened.headers.first(name: .eTag) == "\"1\"")
            #expect(try opened.decode(Composition.self).lastOpenedAt != nil)

            client.clock.advance(by: 60)
            var edit = CompositionInput(title: "River Song", lyrics: "The river keeps on running\nDown to the open sea")
            edit.themeOverride = .dirtyDishes
            let saved = try await client.send(.PUT, "/api/compositions/\(first.id)", json: edit, auth: .cookie(ada), headers: ["If-Match": "\"1\""])
            #expect(saved.status == .ok && saved.headers.first(name: .eTag) == "\"2\"")
            let savedSong = try saved.decode(Composition.self)
            #expect(savedSong.themeOverride == .dirtyDishes)
            // The rhyme analysis of the saved lyrics travels with them when the song is opened.
            let reopened = try await client.send(.GET, "/api/compositions/\(first.id)", auth: .cookie(ada)).decode(Composition.self)
            let cache = try #require(reopened.rhymeAnalysisCache)
            #expect(cache.contains("\"scheme\":\"A\"") && cache.contains("Down to the open sea"))
            #expect(savedSong.rhymeAnalysisCache == nil)   // saving does not analyse; opening does, once per version

            let list = try await client.send(.GET, "/api/compositions", auth: .cookie(ada)).decode([CompositionSummary].self)
            #expect(list.map(\.title) == ["River Song", "Untitled"])
            #expect(list.first?.snippet == "The river keeps on running" && list.first?.version == 2)
        }
    }

    @Test("a new song sent with the device's id is made once: sent again (a retry, a second tab) it answers the same song; another person's id is refused",
          arguments: TestDatabase.all)
    func madeOnce(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let bea = try await client.addUser("bea", by: ada)
            let id = UUID()
            let first = try await client.send(.POST, "/api/compositions", json: CompositionInput(title: "Night Train", lyrics: "Rails hum low", id: id), auth: .cookie(ada))
            #expect(first.status == .created)
            #expect(try first.decode(Composition.self).id == id)
            let again = try await client.send(.POST, "/api/compositions", json: CompositionInput(title: "Night Train", lyrics: "Rails hum low", id: id), auth: .cookie(ada))
            #expect(again.status == .ok)
            #expect(try again.decode(Composition.self).version == 1)
            let list = try await client.send(.GET, "/api/compositions", auth: .cookie(ada)).decode([CompositionSummary].self)
            #expect(list.map(\.id) == [id], "one song, not two")
            let taken = try await client.send(.POST, "/api/compositions", json: CompositionInput(title: "Mine", lyrics: "", id: id), auth: .cookie(bea))
            #expect(taken.status == .conflict && taken.error?.code == "id_taken")
            #expect(try await client.send(.GET, "/api/compositions/\(id)", auth: .cookie(bea)).status == .notFound)
            #expect(try await client.send(.GET, "/api/compositions", auth: .cookie(bea)).decode([CompositionSummary].self).isEmpty)
        }
    }

    @Test("every song whole in one answer, newest first, without the deleted ones, opening none", arguments: TestDatabase.all)
    func whole(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let first = try await client.compose("First", "Line one\nLine two", as: ada)
            client.clock.advance(by: 60)
            let second = try await client.compose("Second", String(repeating: "a long verse ", count: 400), as: ada)
            let gone = try await client.compose("Gone", "", as: ada)
            _ = try await client.compose("Hers", "Not Ada's", as: grace)
            #expect(try await client.send(.DELETE, "/api/compositions/\(gone.id)", auth: .cookie(ada)).status == .noContent)
            let songs = try await client.send(.GET, "/api/compositions/whole", auth: .cookie(ada)).decode([Composition].self)
            #expect(songs.map(\.id) == [second.id, first.id])
            #expect(songs.last?.lyrics == "Line one\nLine two" && songs.first?.lyrics == second.lyrics && songs.allSatisfy { $0.version == 1 })
            #expect(songs.allSatisfy { $0.lastOpenedAt == nil && $0.rhymeAnalysisCache == nil })
        }
    }

    @Test("a save from an old version answers 412 and keeps the losing edit as a conflict copy", arguments: TestDatabase.all)
    func conflicts(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let song = try await client.compose("Night Drive", "Headlights on the highway", as: ada)
            let phone = CompositionInput(title: "Night Drive", lyrics: "Headlights on the highway\nWritten on the phone")
            let laptop = CompositionInput(title: "Night Drive", lyrics: "Headlights on the highway\nWritten on the laptop")
            #expect(try await client.send(.PUT, "/api/compositions/\(song.id)", json: phone, auth: .cookie(ada), headers: ["If-Match": "\"1\""]).status == .ok)
            let late = try await client.send(.PUT, "/api/compositions/\(song.id)", json: laptop, auth: .cookie(ada), headers: ["If-Match": "\"1\""])
            #expect(late.status == .preconditionFailed)
            let conflict = try late.decode(CompositionConflict.self)
            #expect(conflict.error.code == "version_conflict")
            #expect(conflict.current.lyrics == phone.lyrics && conflict.current.version == 2)
            #expect(conflict.conflictCopy.lyrics == laptop.lyrics && conflict.conflictCopy.title == "Night Drive (conflict copy)")
            #expect(conflict.conflictCopy.conflictOf == song.id)
            let titles = try await client.send(.GET, "/api/compositions", auth: .cookie(ada)).decode([CompositionSummary].self).map(\.title)
            #expect(Set(titles) == ["Night Drive", "Night Drive (conflict copy)"])

            let noVersion = try await client.send(.PUT, "/api/compositions/\(song.id)", json: laptop, auth: .cookie(ada))
            #expect(noVersion.status == .preconditionRequired && noVersion.error?.code == "if_match_required")
            let badVersion = try await client.send(.PUT, "/api/compositions/\(song.id)", json: laptop, auth: .cookie(ada), headers: ["If-Match": "soon"])
            #expect(badVersion.status == .badRequest)
        }
    }

    @Test("search matches title or lyrics, any case, by word starts, with a snippet around the hit", arguments: TestDatabase.all)
    func search(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            _ = try await client.compose("Moonlight", "Silver on the water", as: ada)
            _ = try await client.compose("Harbour", "The boats come home\nAnd the MOON rises over the bay", as: ada)
            _ = try await client.compose("Desert", "Sand and honeymoon heat", as: ada)
            func search(_ query: String) async throws -> [CompositionSummary] {
                let encoded = query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
                return try await client.send(.GET, "/api/compositions?q=\(encoded)", auth: .cookie(ada)).decode([CompositionSummary].self)
            }
            let moon = try await search("moon")
            #expect(Set(moon.map(\.title)) == ["Moonlight", "Harbour"])   // not "honeymoon": words start with the query
            #expect(moon.first { $0.title == "Harbour" }?.snippet == "And the MOON rises over the bay")
            #expect(try await search("MOON bay").map(\.title) == ["Harbour"])          // every word, title or lyrics
            #expect(try await search("harbour boats").map(\.title) == ["Harbour"])
            #expect(try await search("wat").map(\.title) == ["Moonlight"])
            #expect(try await search("zebra").isEmpty)
            #expect(try await search("  ?! ").count == 3)                               // no words: everything
        }
    }

    @Test("delete hides a song until it is restored; others' songs answer 404", arguments: TestDatabase.all)
    func deleteAndIsolation(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let song = try await client.compose("Lullaby", "Hush now, the stars are out", as: ada)
            for (method, path) in [(HTTPMethod.GET, ""), (.DELETE, ""), (.POST, "/restore")] {
                let reply = try await client.send(method, "/api/compositions/\(song.id)\(path)", auth: .cookie(grace))
                #expect(reply.status == .notFound, "\(method) \(path)")
            }
            let put = try await client.send(.PUT, "/api/compositions/\(song.id)", json: CompositionInput(title: "Mine", lyrics: ""),
                                            auth: .cookie(grace), headers: ["If-Match": "\"1\""])
            #expect(put.status == .notFound)
            #expect(try await client.send(.GET, "/api/compositions?q=stars", auth: .cookie(grace)).decode([CompositionSummary].self).isEmpty)

            #expect(try await client.send(.DELETE, "/api/compositions/\(song.id)", auth: .cookie(ada)).status == .noContent)
            #expect(try await client.send(.GET, "/api/compositions/\(song.id)", auth: .cookie(ada)).status == .notFound)
            #expect(try await client.send(.GET, "/api/compositions?q=stars", auth: .cookie(ada)).decode([CompositionSummary].self).isEmpty)
            let restored = try await client.send(.POST, "/api/compositions/\(song.id)/restore", auth: .cookie(ada))
            #expect(restored.status == .ok)
            #expect(try await client.send(.GET, "/api/compositions?q=stars", auth: .cookie(ada)).decode([CompositionSummary].self).count == 1)
        }
    }

    @Test("titles and lyrics have limits")
    func limits() async throws {
        try await withTestApp(.sqlite, maxBodyBytes: 4 << 20) { client in
            let ada = try await client.setUpOwner()
            let long = try await client.send(.POST, "/api/compositions", json: CompositionInput(title: String(repeating: "t", count: 201), lyrics: ""), auth: .cookie(ada))
            #expect(long.status == .badRequest && long.error?.message.hasPrefix("title:") == true)
            let huge = try await client.send(.POST, "/api/compositions", json: CompositionInput(title: "Epic", lyrics: String(repeating: "la ", count: 40_000)), auth: .cookie(ada))
            #expect(huge.status == .badRequest && huge.error?.message.hasPrefix("lyrics:") == true)
        }
    }
    @Test("the store answers songs as the API's values: what it wrote, each edit's new version, nil for a stale edit", arguments: TestDatabase.all)
    func storeValues(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            _ = try await client.setUpOwner()
            let ada = try #require(try await FluentUserRepository(database: client.app.db).all().first)
            let user = AuthenticatedUser(id: ada.id, username: ada.username, isOwner: true, tokenID: UUID(), tokenKind: .session,
                                         accountCreatedAt: Date())
            let songs = FluentCompositionRepository(database: client.app.db)
            let start = Date(timeIntervalSince1970: 1_790_000_000)
            let made = try await songs.create(id: nil, title: "Harbour", lyrics: "Lights on the water", themeOverride: Theme.plainDark.rawValue,
                                              conflictOf: nil, ownedBy: user, at: start)
            #expect(made == Composition(id: made.id, title: "Harbour", lyrics: "Lights on the water", version: 1, createdAt: start,
                                        updatedAt: start, lastOpenedAt: nil, themeOverride: .plainDark, conflictOf: nil))
            #expect(try await songs.find(made.id, ownedBy: user) == made)
            let later = start.addingTimeInterval(60)
            let saved = try #require(try await songs.update(made.id, title: "Harbour", lyrics: "Lights on the tide", themeOverride: nil,
                                                            fromVersion: 1, ownedBy: user, at: later))
            var expected = made
            (expected.lyrics, expected.version, expected.updatedAt, expected.themeOverride) = ("Lights on the tide", 2, later, nil)
            #expect(saved == expected)
            #expect(try await songs.all(ownedBy: user) == [expected])
            #expect(try await songs.update(made.id, title: "Stale", lyrics: "", themeOverride: nil, fromVersion: 1, ownedBy: user, at: later) == nil)
        }
    }
}

@Suite("Rhymes API")
struct RhymesAPITests {
    @Test("a song exports as plain text and as a PDF lyric sheet (read back by pdftotext) with scheme letters and syllables; a .txt file imports as a song")
    func exportAndImport() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let song = try await client.compose("Harbour (Night) Song", "Under the moon\nOver the dune\n\nCafé lights are low\nSoftly now we go", as: ada)
            let text = try await client.send(.GET, "/api/compositions/\(song.id)/export?format=txt", auth: .cookie(ada))
            #expect(text.status == .ok && text.headers.contentType?.subType == "plain")
            #expect(text.text == "Harbour (Night) Song\n\nUnder the moon\nOver the dune\n\nCafé lights are low\nSoftly now we go\n")
            #expect(text.headers.first(name: .contentDisposition)?.contains("filename=\"Harbour Night Song.txt\"") == true)

            let pdf = try await client.send(.GET, "/api/compositions/\(song.id)/export?format=pdf", auth: .cookie(ada))
            #expect(pdf.status == .ok && pdf.headers.contentType?.subType == "pdf" && pdf.bytes.starts(with: Data("%PDF-1.4".utf8)))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("sheet-\(UUID().uuidString).pdf")
            try pdf.bytes.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/pdftotext")
            process.arguments = ["-layout", file.path, "-"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let read = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let lines = read.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
            #expect(lines.contains("Harbour (Night) Song"), "\(read)")
            // The margin: the stanza's scheme letter and the line's syllables, then the line.
            #expect(lines.contains("A 4 Under the moon") && lines.contains("A 4 Over the dune"), "\(read)")
            #expect(lines.contains("A 5 Café lights are low") && lines.contains("A 5 Softly now we go"), "\(read)")
            // Opened, the song keeps its analysis; the sheet made from it is the same file.
            _ = try await client.send(.GET, "/api/compositions/\(song.id)", auth: .cookie(ada))
            let again = try await client.send(.GET, "/api/compositions/\(song.id)/export?format=pdf", auth: .cookie(ada))
            #expect(again.bytes == pdf.bytes)
            #expect(try await client.send(.GET, "/api/compositions/\(song.id)/export?format=doc", auth: .cookie(ada)).status == .badRequest)
            let bea = try await client.addUser("bea", by: ada)
            #expect(try await client.send(.GET, "/api/compositions/\(song.id)/export?format=txt", auth: .cookie(bea)).status == .notFound)

            // A .txt file in UTF-16 becomes a song named after the file.
            let upload = try await client.send(.POST, "/api/compositions/import", data: "First line\r\nSecond line\r\n".data(using: .utf16)!,
                                               contentType: "text/plain", auth: .cookie(bea), headers: ["X-File-Name": "Night%20Ferry.txt"])
            #expect(upload.status == .created, "\(upload.text)")
            let imported = try upload.decode(Composition.self)
            #expect(imported.title == "Night Ferry" && imported.lyrics == "First line\nSecond line")
            let binary = try await client.send(.POST, "/api/compositions/import", data: Data([0x89, 0x50, 0x4E, 0x47, 0, 0, 0, 1]),
                                               contentType: "application/octet-stream", auth: .cookie(bea), headers: ["X-File-Name": "cover.png"])
            #expect(binary.status == .unprocessableEntity && binary.error?.code == "not_text")
        }
    }

    @Test("analysis, a word's rhymes and suggestions at the caret")
    func rhymes() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            struct Text: Content { var text: String }
            let analysis = try await client.send(.POST, "/api/rhymes/analyze", json: Text(text: "Under the moon\nOver the dune"), auth: .cookie(ada))
            #expect(analysis.status == .ok, "\(analysis.text)")
            #expect(analysis.text.contains("\"scheme\":\"A\"") && analysis.text.contains("\"key\":\"UW1 N\""))

            let word = try await client.send(.GET, "/api/rhymes/Night?near=true", auth: .cookie(ada))
            let decoded = try #require(try JSONSerialization.jsonObject(with: Data(word.text.utf8)) as? [String: Any])
            #expect(decoded["word"] as? String == "night" && (decoded["perfect"] as? [String])?.contains("light") == true)
            #expect(((decoded["near"] as? [String]) ?? []).isEmpty == false)

            struct Caret: Content { var text: String; var caret: Int }
            let text = "I walked alone beneath the night\nAnd held on to the fli"
            let suggestions = try await client.send(.POST, "/api/rhymes/suggestions", json: Caret(text: text, caret: text.utf16.count), auth: .cookie(ada))
            #expect(suggestions.text.contains("\"word\":\"flight\""))
            let badCaret = try await client.send(.POST, "/api/rhymes/suggestions", json: Caret(text: "hi", caret: 9), auth: .cookie(ada))
            #expect(badCaret.status == .badRequest && badCaret.error?.message.hasPrefix("caret:") == true)
            #expect(try await client.send(.GET, "/api/rhymes/night").status == .unauthorized)
        }
    }

    @Test("the offline rhyme pack: gzipped as the device keeps it, versioned, under 3 MB, 304 for the pack the device has, signed in only")
    func offlinePack() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let pack = try await client.send(.GET, "/api/offline/rhymes", auth: .cookie(ada))
            #expect(pack.status == .ok)
            #expect(pack.headers.contentType?.description == "application/gzip")
            #expect(pack.headers.first(name: .contentEncoding) == nil)
            #expect(pack.headers.first(name: "X-Reverie-Rhymes-Version") == "1")
            #expect(pack.bytes.count > 100_000 && pack.bytes.count <= 3_000_000, "\(pack.bytes.count) bytes")
            // Unpacked by the system's gzip: the layout the web app reads.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-pack-\(UUID().uuidString).gz")
            try pack.bytes.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let gunzip = Process()
            gunzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
            gunzip.arguments = ["-dc", file.path]
            let output = Pipe()
            gunzip.standardOutput = output
            try gunzip.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            gunzip.waitUntilExit()
            #expect(text.hasPrefix("reverie-rhymes 1 "))
            #expect(text.split(separator: "\n").contains { line in line.split(separator: " ").contains { $0.hasPrefix("night:1:") } })

            let tag = try #require(pack.headers.first(name: .eTag))
            let again = try await client.send(.GET, "/api/offline/rhymes", auth: .cookie(ada), headers: ["If-None-Match": tag])
            #expect(again.status == .notModified && again.bytes.isEmpty)
            #expect(try await client.send(.GET, "/api/offline/rhymes", auth: .cookie(ada), headers: ["If-None-Match": "\"old\""]).status == .ok)
            #expect(try await client.send(.GET, "/api/offline/rhymes").status == .unauthorized)
        }
    }

    @Test("an anthology far longer than a song is analysed whole; beyond 2,000,000 characters the answer says the limit")
    func anthology() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            struct Text: Content { var text: String }
            let stanza = "I walked alone beneath the night\nThe river running cold and deep\nI followed every distant light\nAnd promised I would never sleep"
            let text = Array(repeating: stanza, count: 1_500).joined(separator: "\n\n")   // 7,499 lines, 196,000 characters
            let analysis = try await client.send(.POST, "/api/rhymes/analyze", json: Text(text: text), auth: .cookie(ada))
            #expect(analysis.status == .ok, "\(analysis.status)")
            let decoded = try JSONDecoder().decode(LyricsAnalysis.self, from: Data(analysis.text.utf8))
            #expect(decoded.lines.count == 7_499 && decoded.lines.compactMap(\.scheme).joined() == String(repeating: "ABAB", count: 1_500))
            let tooLong = try await client.send(.POST, "/api/rhymes/analyze", json: Text(text: String(repeating: "la ", count: 700_000)), auth: .cookie(ada))
            #expect(tooLong.status == .badRequest && tooLong.error?.message.hasPrefix("text: at most 2000000") == true)
        }
    }
}

@Suite("Song list snippets")
struct SnippetTests {
    @Test("lines split where Character.isNewline would, trimmed of spaces")
    func lines() {
        let text = "  a \r\nb\rc\u{2028}d\n\n\t e\u{0085}f"
        #expect(TextLines(text).map(String.init) == ["a", "b", "c", "d", "", "e", "f"])
        #expect(TextLines(text).map(String.init) == text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) })
    }

    @Test("the first non-empty line, or the line of the first hit at a word start, shortened around it")
    func snippets() {
        let lyrics = "\n  \nThe river runs\nunder the moonlight, a long line " + String(repeating: "la ", count: 40) + "and the harbour\nmoon"
        #expect(CompositionController.snippet(lyrics, words: []) == "The river runs")
        #expect(CompositionController.snippet(lyrics, words: ["moon"]).hasPrefix("under the moonlight"))
        #expect(CompositionController.snippet(lyrics, words: ["harb"]).hasPrefix("…") && CompositionController.snippet(lyrics, words: ["harb"]).contains("harbour"))
        #expect(CompositionController.snippet(lyrics, words: ["iver"]) == "The river runs")  // not at a word start: the first line
    }
}
