import AudioRender
import Foundation
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor

/// Bedside's content through the API: My Content (the seed's tests 31–40 and 46–47) and the
/// random pick with no repeats (tests 5–8).
@Suite("Bedside API")
struct BedsideAPITests {
    func pieces(_ client: TestClient, _ kind: String, _ cookie: String) async throws -> BedsidePieces {
        try await client.send(.GET, "/api/bedside/pieces?kind=\(kind)", auth: .cookie(cookie)).decode(BedsidePieces.self)
    }

    @Test("My Content starts with the default piece and gets it back after everything is deleted (tests 35, 40, 47)", arguments: TestDatabase.all)
    func defaults(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            for kind in ["meditation", "poem"] {
                let first = try await pieces(client, kind, ada)
                #expect(first.mine.count == 1 && !first.mine[0].isPreset)
                #expect(first.presets.count == (kind == "poem" ? 35 : 12) && first.presets.allSatisfy(\.isPreset))
                let again = try await pieces(client, kind, ada)
                #expect(again.mine.map(\.id) == first.mine.map(\.id), "the default is made once")
                #expect(try await client.send(.DELETE, "/api/bedside/pieces/\(first.mine[0].id)", auth: .cookie(ada)).status == .noContent)
                let back = try await pieces(client, kind, ada)
                #expect(back.mine.count == 1 && back.mine[0].title == first.mine[0].title && back.mine[0].id != first.mine[0].id)
            }
            #expect(try await pieces(client, "poem", ada).mine[0].author?.contains("Basho") == true)
        }
    }

    @Test("create, edit, duplicate as “(Copy)”, delete; presets are read-only but can be duplicated (tests 31–34, 36–39)", arguments: TestDatabase.all)
    func crud(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let script = "Night Song (0.3s)\nby Ada (2s)\n\nThe house is quiet now, (0.6s)\nthe lamps are low. (4s)"
            let created = try await client.send(.POST, "/api/bedside/pieces", json: BedsidePieceInput(kind: "poem", title: "Night Song", script: script), auth: .cookie(ada))
            #expect(created.status == .created, "\(created.text)")
            let poem = try created.decode(BedsidePieceInfo.self)
            #expect(poem.kind == "poem" && poem.author == "Ada" && poem.warnings.isEmpty && poem.estimatedSeconds > 7 && poem.estimatedSeconds < 15)

            let edited = try await client.send(.PUT, "/api/bedside/pieces/\(poem.id)", json: BedsidePieceInput(title: "Night Song II", script: script + "\nGood night. (2s)"),
                                               auth: .cookie(ada)).decode(BedsidePieceInfo.self)
            #expect(edited.title == "Night Song II" && edited.script.hasSuffix("Good night. (2s)"))
            #expect(try await client.send(.GET, "/api/bedside/pieces/\(poem.id)", auth: .cookie(ada)).decode(BedsidePieceInfo.self) == edited)

            let copy = try await client.send(.POST, "/api/bedside/pieces/\(poem.id)/duplicate", auth: .cookie(ada))
            #expect(copy.status == .created)
            #expect(try copy.decode(BedsidePieceInfo.self).title == "Night Song II (Copy)")
            let presetCopy = try await client.send(.POST, "/api/bedside/pieces/poem.innisfree/duplicate", auth: .cookie(ada)).decode(BedsidePieceInfo.self)
            #expect(presetCopy.title == "The Lake Isle of Innisfree (Copy)" && !presetCopy.isPreset && presetCopy.author == "W. B. Yeats")
            #expect(try await pieces(client, "poem", ada).mine.map(\.title) == ["Night Song II", "Night Song II (Copy)", "The Lake Isle of Innisfree (Copy)"])

            let readOnly = try await client.send(.PUT, "/api/bedside/pieces/poem.innisfree", json: BedsidePieceInput(title: "Mine", script: "mine"), auth: .cookie(ada))
            #expect(readOnly.status == .forbidden && readOnly.error?.code == "preset_read_only")
            #expect(try await client.send(.DELETE, "/api/bedside/pieces/poem.innisfree", auth: .cookie(ada)).status == .forbidden)
            #expect(try await client.send(.GET, "/api/bedside/pieces/poem.innisfree", auth: .cookie(ada)).decode(BedsidePieceInfo.self).author == "W. B. Yeats")

            #expect(try await client.send(.DELETE, "/api/bedside/pieces/\(poem.id)", auth: .cookie(ada)).status == .noContent)
            #expect(try await client.send(.GET, "/api/bedside/pieces/\(poem.id)", auth: .cookie(ada)).status == .notFound)
            #expect(try await client.send(.DELETE, "/api/bedside/pieces/\(poem.id)", auth: .cookie(ada)).status == .notFound)
        }
    }

    @Test("what cannot be spoken is refused with a reason; markers the reader does not know come back as warnings with line and column")
    func validation() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let badKind = try await client.send(.POST, "/api/bedside/pieces", json: BedsidePieceInput(kind: "sonnet", title: "x", script: "words"), auth: .cookie(ada))
            #expect(badKind.status == .badRequest && badKind.text.contains("kind"))
            let empty = try await client.send(.POST, "/api/bedside/pieces", json: BedsidePieceInput(kind: "poem", title: "x", script: " (2s) "), auth: .cookie(ada))
            #expect(empty.status == .unprocessableEntity && empty.error?.code == "invalid_script")
            let long = try await client.send(.POST, "/api/bedside/pieces", json: BedsidePieceInput(kind: "poem", title: String(repeating: "t", count: 201), script: "words"),
                                             auth: .cookie(ada))
            #expect(long.status == .badRequest)
            let odd = try await client.send(.POST, "/api/bedside/pieces", json: BedsidePieceInput(kind: "meditation", title: "", script: "Breathe in (2x) and out. (1.5m)"),
                                            auth: .cookie(ada)).decode(BedsidePieceInfo.self)
            #expect(odd.title == "Breathe in" || odd.title.hasPrefix("Breathe in"))
            #expect(odd.warnings.count == 1 && odd.warnings[0].hasPrefix("line 1, column 12"), "\(odd.warnings)")
            #expect(odd.estimatedSeconds >= 90 && odd.estimatedSeconds < 95, "a minute and a half of pause, and four words")
            #expect(try await client.send(.GET, "/api/bedside/pieces?kind=", auth: .cookie(ada)).status == .badRequest)
            #expect(try await client.send(.GET, "/api/bedside/pieces?kind=poem").status == .unauthorized)
        }
    }

    @Test("another person's piece is theirs alone: not listed, not found, not editable")
    func isolation() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let bea = try await client.addUser("bea", by: ada)
            let mine = try await client.send(.POST, "/api/bedside/pieces", json: BedsidePieceInput(kind: "poem", title: "Ada's", script: "Only mine. (2s)"),
                                             auth: .cookie(ada)).decode(BedsidePieceInfo.self)
            #expect(try await pieces(client, "poem", bea).mine.map(\.title) == ["An Old Pond"])
            #expect(try await client.send(.GET, "/api/bedside/pieces/\(mine.id)", auth: .cookie(bea)).status == .notFound)
            #expect(try await client.send(.PUT, "/api/bedside/pieces/\(mine.id)", json: BedsidePieceInput(title: "Bea's", script: "Taken. (2s)"), auth: .cookie(bea)).status == .notFound)
            #expect(try await client.send(.DELETE, "/api/bedside/pieces/\(mine.id)", auth: .cookie(bea)).status == .notFound)
            #expect(try await client.send(.POST, "/api/bedside/pieces/\(mine.id)/duplicate", auth: .cookie(bea)).status == .notFound)
            #expect(try await client.send(.GET, "/api/bedside/pieces/\(mine.id)", auth: .cookie(ada)).status == .ok)
        }
    }

    @Test("the next piece comes from the presets and the person's own, with no repeat until all have played (tests 5–8)", arguments: TestDatabase.all)
    func nextPiece(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let own = try await client.send(.POST, "/api/bedside/pieces", json: BedsidePieceInput(kind: "meditation", title: "Mine", script: "Rest now. (30s)"),
                                            auth: .cookie(ada)).decode(BedsidePieceInfo.self)
            let all = try await pieces(client, "meditation", ada)
            let pool = Set((all.presets + all.mine).map(\.id))
            #expect(pool.count == 12 + 1 && pool.contains(own.id))
            func next() async throws -> BedsidePieceInfo {
                try await client.send(.POST, "/api/bedside/next", json: BedsideNextRequest(kind: "meditation"), auth: .cookie(ada)).decode(BedsidePieceInfo.self)
            }
            var round: [String] = []
            for _ in pool { round.append(try await next().id) }
            #expect(Set(round) == pool, "every piece once: \(round)")
            let opening = try await next()
            #expect(opening.id != round.last && opening.kind == "meditation")
            // Poems keep their own round.
            let poem = try await client.send(.POST, "/api/bedside/next", json: BedsideNextRequest(kind: "poem"), auth: .cookie(ada)).decode(BedsidePieceInfo.self)
            #expect(poem.kind == "poem")
            #expect(try await client.send(.POST, "/api/bedside/next", json: BedsideNextRequest(kind: "story"), auth: .cookie(ada)).status == .badRequest)
        }
    }

    @Test("the rooms' sounds and the alarm chime are audio to play: a minute that loops, the chime two, with Range; others are a 404")
    func sounds() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            for (name, seconds) in [("rain", 60.0), ("silence", 60), ("chime", 120)] {
                let reply = try await client.send(.GET, "/api/bedside/sounds/\(name)", auth: .cookie(ada))
                #expect(reply.status == .ok && reply.headers.first(name: .contentType) == "audio/mp4", "\(name): \(reply.status)")
                let file = scratchFile("\(name).m4a")
                try reply.bytes.write(to: file)
                #expect(abs(try await AudioFiles().probe(file).duration - seconds) < 0.1, "\(name)")
                let part = try await client.send(.GET, "/api/bedside/sounds/\(name)", auth: .cookie(ada), headers: ["Range": "bytes=0-99"])
                #expect(part.status == .partialContent && part.bytes.count == 100)
            }
            #expect(try await client.send(.GET, "/api/bedside/sounds/jungle", auth: .cookie(ada)).status == .notFound)
            #expect(try await client.send(.GET, "/api/bedside/sounds/rain").status == .unauthorized)
            // The room volume in the bytes (an iPhone ignores the element's): the same minute, that many dB down.
            func heard(_ query: String) async throws -> AudioBuffer {
                let reply = try await client.send(.GET, "/api/bedside/sounds/ocean\(query)", auth: .cookie(ada))
                #expect(reply.status == .ok, "\(query): \(reply.text.prefix(200))")
                let file = scratchFile("ocean.m4a")
                try reply.bytes.write(to: file)
                let wav = try await CommandRunner.live.run("ffmpeg", ["-v", "error", "-i", file.path, "-ac", "1", "-f", "wav", "-"], nil)
                return try WAVFile.decode(wav.output)
            }
            let full = try await heard(""), room = try await heard("?level=0.35")
            #expect(abs(room.duration - full.duration) < 0.1)
            #expect(abs(decibels(room.rms()) - decibels(full.rms()) - 20 * log10(0.35)) < 0.7, "\(decibels(room.rms())) against \(decibels(full.rms()))")
            #expect(try await client.send(.GET, "/api/bedside/sounds/ocean?level=-1", auth: .cookie(ada)).status == .badRequest)
        }
    }

    @Test("a piece's plays go into the one listening log: presets by name, one's own by id; other keys are a 400")
    func listeningLog() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let own = try await pieces(client, "poem", ada).mine[0].id
            func stop(_ item: String, _ id: String) -> ProgressEventsRequest {
                ProgressEventsRequest(events: [ProgressEventInput(id: id, item: item, device: "phone", at: client.clock.now, position: 12.5, kind: "pause")])
            }
            for (number, item) in ["bedside:poem.innisfree", "bedside:\(own)"].enumerated() {
                #expect(try await client.send(.POST, "/api/progress/events", json: stop(item, "e\(number)"), auth: .cookie(ada)).status == .ok, "\(item)")
                let place = try await client.send(.GET, "/api/progress/\(item)", auth: .cookie(ada)).decode(ItemProgress.self)
                #expect(place.position == 12.5, "\(item)")
            }
            for item in ["bedside:poem.nothing", "bedside:", "bedside:../etc", "bedsides:poem.innisfree"] {
                let answer = try await client.send(.POST, "/api/progress/events", json: stop(item, "x-\(item)"), auth: .cookie(ada))
                #expect(answer.status == .badRequest, "\(item)")
            }
        }
    }

    @Test("the wake greeting's words: the time in the person's zone, as their clock shows it, the day, and a kind sentence")
    func greeting() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            // The test clock: 2027-01-15 08:00 UTC, a Friday.
            let paris = try await client.send(.GET, "/api/bedside/greeting?timeZone=Europe/Paris", auth: .cookie(ada)).decode(WakeGreetingInfo.self)
            #expect(paris.text.hasPrefix("Good morning. It is 9:00 a.m. on Friday, the fifteenth of January. "), "\(paris.text)")
            _ = try await client.send(.PATCH, "/api/settings", json: UserSettings(bedside: BedsideSettings(clock24: true)), auth: .cookie(ada))
            let tokyo = try await client.send(.GET, "/api/bedside/greeting?timeZone=Asia/Tokyo", auth: .cookie(ada)).decode(WakeGreetingInfo.self)
            #expect(tokyo.text.hasPrefix("Good afternoon. It is 17:00 on Friday"), "\(tokyo.text)")
            #expect(try await client.send(.GET, "/api/bedside/greeting?timeZone=Mars/Olympus", auth: .cookie(ada)).status == .badRequest)
            #expect(try await client.send(.GET, "/api/bedside/greeting").status == .unauthorized)
        }
    }

    @Test("the night stream's address is made once per person; another id, another person's or none answers 404 or 401; alarmAt is range-checked (issue 46)")
    func nightStream() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            let first = try await client.send(.POST, "/api/bedside/night", auth: .cookie(ada)).decode(BedsideNightInfo.self)
            let again = try await client.send(.POST, "/api/bedside/night", auth: .cookie(ada)).decode(BedsideNightInfo.self)
            #expect(first.stream == again.stream && first.stream.hasPrefix("/api/bedside/night/") && first.contentType == "audio/mpeg")
            #expect(try await client.send(.GET, "/api/bedside/night/\(UUID().uuidString)", auth: .cookie(ada)).status == .notFound)
            #expect(try await client.send(.GET, first.stream).status == .unauthorized)
            let bob = try await client.addUser("bob", by: ada)
            #expect(try await client.send(.GET, first.stream, auth: .cookie(bob)).status == .notFound, "another person's night")
            #expect(try await client.send(.HEAD, first.stream, auth: .cookie(ada)).status == .ok)
            for bad: Double in [-1, 1.5, 5_000_000_000_000] {
                let answer = try await client.send(.PATCH, "/api/settings", json: UserSettings(bedside: BedsideSettings(alarmAt: bad)), auth: .cookie(ada))
                #expect(answer.status == .badRequest, "alarmAt \(bad)")
            }
            let saved = try await client.send(.PATCH, "/api/settings", json: UserSettings(bedside: BedsideSettings(alarmAt: 1_800_000_000_000)), auth: .cookie(ada))
            #expect(try saved.decode(UserSettings.self).bedside?.alarmAt == 1_800_000_000_000)
        }
    }

    @Test("an editor's live check: phrases, pauses, the estimated length at a speed, and warnings with line and column (tests 41–43)")
    func check() async throws {
        try await withTestApp(.sqlite) { client in
            let ada = try await client.setUpOwner()
            func check(_ text: String, rate: Double? = nil) async throws -> ScriptCheck {
                try await client.send(.POST, "/api/speech/check", json: ScriptCheckRequest(text: text, rate: rate), auth: .cookie(ada)).decode(ScriptCheck.self)
            }
            let marked = try await check("Breathe in. (2s) And out. (1.5m)")
            #expect(marked.phrases == 2 && marked.pauses == 2 && marked.pauseSeconds == 92 && marked.hasMarkers && marked.warnings.isEmpty)
            #expect(abs(marked.estimatedSeconds - (92 + 4.0 / 150 * 60)) < 0.01)
            #expect(abs(try await check("Breathe in. (2s) And out. (1.5m)", rate: 0.8).estimatedSeconds - (92 + 4.0 / 120 * 60)) < 0.01)
            let plain = try await check("The moon is up.\nThe house is still.")
            #expect(!plain.hasMarkers && plain.pauses >= 1 && plain.pauseSeconds > 0, "automatic pauses: \(plain)")
            let odd = try await check("Rest (2x) now.\nand here (1000m)")
            #expect(odd.warnings.map(\.line) == [1, 2] && odd.warnings[0].column == 6, "\(odd.warnings)")
            #expect(try await check("   ").phrases == 0)
            #expect(try await client.send(.POST, "/api/speech/check", json: ScriptCheckRequest(text: "a", rate: 3), auth: .cookie(ada)).status == .badRequest)
            #expect(try await client.send(.POST, "/api/speech/check", json: ScriptCheckRequest(text: "a")).status == .unauthorized)
        }
    }
}
