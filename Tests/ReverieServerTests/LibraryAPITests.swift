import AudioRender
import Foundation
@testable import ReverieServer
import Playback
import ReverieAPI
import Testing
import Vapor
import ZIPFoundation

@Suite("Listen library: uploads, books with chapters, music, covers, isolation and clean-up")
struct LibraryAPITests {
    /// An audio file made by ffmpeg: `seconds` of tone, tags, optional chapters and cover.
    static func audioFile(_ name: String, seconds: Double = 6, title: String, chapters: [(String, Int)] = [], cover: Bool = false,
                          frequency: Int = 440) async throws -> Data {
        let folder = scratchFile("x").deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        var meta = ";FFMETADATA1\ntitle=\(title)\nartist=Ann Author\nalbum=Night Songs\ntrack=2/9\n"
        let ends = chapters.dropFirst().map(\.1) + [Int(seconds * 1000)]
        for ((chapter, start), end) in zip(chapters, ends) {
            meta += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(start)\nEND=\(end)\ntitle=\(chapter)\n"
        }
        let metaFile = folder.appendingPathComponent("meta.txt")
        try meta.write(to: metaFile, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent(name)
        var arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=\(frequency):duration=\(seconds)", "-i", metaFile.path]
        if cover { arguments += ["-f", "lavfi", "-i", "color=c=0x224466:s=600x600:d=0.04"] }
        arguments += ["-map", "0:a", "-map_metadata", "1", "-map_chapters", "1"]
        if cover { arguments += ["-map", "2:v", "-c:v", "mjpeg", "-disposition:v", "attached_pic"] }
        arguments += name.hasSuffix(".mp3") ? ["-c:a", "libmp3lame", "-b:a", "64k"] : ["-c:a", "aac", "-b:a", "64k"]
        arguments.append(output.path)
        let result = try await CommandRunner.live.run("ffmpeg", arguments, nil)
        #expect(result.status == 0, "\(String(decoding: result.errors, as: UTF8.self))")
        return try Data(contentsOf: output)
    }

    @Test("files that lie: an MP4 with no audio is 415; a book of 2,000 chapters lists as a summary and shows them all on its page")
    func lyingFiles() async throws {
        let picture = scratchFile("picture.m4a")
        defer { try? FileManager.default.removeItem(at: picture.deletingLastPathComponent()) }
        let made = try await CommandRunner.live.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x223344:s=64x64:d=1",
                                                             "-c:v", "mpeg4", "-f", "mp4", picture.path], nil)
        #expect(made.status == 0)
        let chapters = (0..<2_000).map { ("Part \($0 + 1)", $0 * 5) }
        let book = try await Self.audioFile("parts.mp3", seconds: 10.5, title: "Many Parts", chapters: chapters)  // 5 ms apart
        try await withTestApp(.sqlite) { client in
            let owner = try await client.setUpOwner()
            let refused = try await client.send(.POST, "/api/library", data: try Data(contentsOf: picture), contentType: "audio/mp4",
                                                auth: .cookie(owner))
            #expect(refused.status == .unsupportedMediaType && refused.error?.code == "no_audio", "\(refused.text)")

            let uploaded = try await client.send(.POST, "/api/library?kind=book", data: book, contentType: "audio/mpeg", auth: .cookie(owner))
            #expect(uploaded.status == .created, "\(uploaded.text)")
            let item = try uploaded.decode(LibraryUploadResult.self).item
            let listed = try await client.send(.GET, "/api/library", auth: .cookie(owner))
            #expect(listed.bytes.count < 4_000, "the list is \(listed.bytes.count) bytes")
            let items = try listed.decode(LibraryList.self).items
            let summary = try #require(items.first)
            #expect(summary.chapters.isEmpty && summary.chapterCount == 2_000 && summary.chaptersPlayed == 0)
            let page = try await client.send(.GET, "/api/library/\(item.id)", auth: .cookie(owner)).decode(LibraryItemInfo.self)
            #expect(page.chapters.count == 2_000 && page.chapters.last?.title == "Part 2000")

            // An M4A of 2 s whose mvhd, tkhd and mdhd say 10 hours (issue 50): stored at its 2 s.
            var lying = [UInt8](try await Self.audioFile("short.m4a", seconds: 2, title: "Short"))
            for (type, field) in [("mvhd", 20), ("tkhd", 24), ("mdhd", 20)] {
                let at = try #require((0..<lying.count - 8).first { lying[$0..<$0 + 4].elementsEqual(type.utf8) })
                let timescale = type == "tkhd" ? 1_000 : Int(lying[at + 16]) << 24 | Int(lying[at + 17]) << 16 | Int(lying[at + 18]) << 8 | Int(lying[at + 19])
                let claimed = UInt32(36_000 * timescale)
                lying.replaceSubrange(at + field..<at + field + 4, with: [UInt8(claimed >> 24), UInt8(claimed >> 16 & 0xFF), UInt8(claimed >> 8 & 0xFF), UInt8(claimed & 0xFF)])
            }
            let short = try await client.send(.POST, "/api/library?kind=music", data: Data(lying), contentType: "audio/mp4", auth: .cookie(owner))
            #expect(short.status == .created, "\(short.text)")
            let stored = try short.decode(LibraryUploadResult.self).item
            #expect(abs(stored.duration - 2) < 0.1, "stored as \(stored.duration) s")
        }
    }

    @Test("an M4B becomes a book with its chapters and cover; an MP3 becomes music; both play with Range", arguments: TestDatabase.all)
    func uploadBookAndMusic(database: TestDatabase) async throws {
        let book = try await Self.audioFile("night.m4b", title: "The Night Book", chapters: [("Dusk", 0), ("Midnight", 2_000), ("Dawn", 4_500)], cover: true)
        let song = try await Self.audioFile("song.mp3", seconds: 3, title: "Lullaby")
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let empty = try await client.send(.GET, "/api/library", auth: .cookie(owner)).decode(LibraryList.self)
            #expect(empty.items.isEmpty)

            let added = try await client.send(.POST, "/api/library", data: book, contentType: "audio/mp4", auth: .cookie(owner),
                                              headers: ["X-File-Name": "night.m4b"])
            #expect(added.status == .created, "\(added.text)")
            let item = try added.decode(LibraryUploadResult.self).item
            #expect(item.kind == "book" && item.title == "The Night Book" && item.author == "Ann Author" && item.originalName == "night.m4b")
            #expect(item.chapters.map(\.title) == ["Dusk", "Midnight", "Dawn"])
            #expect(item.chapters.map(\.start) == [0, 2, 4.5])
            #expect(abs(item.duration - 6) < 0.05 && item.format == "mp4" && item.byteSize == book.count)

            let cover = try await client.send(.GET, try #require(item.artworkURL), auth: .cookie(owner))
            #expect(cover.status == .ok && cover.bytes.starts(with: [0xFF, 0xD8]) && cover.headers.contentType == .jpeg)

            let part = try await client.send(.GET, item.audioURL, auth: .cookie(owner), headers: ["Range": "bytes=0-99"])
            #expect(part.status == .partialContent && part.bytes == book.prefix(100))
            let whole = try await client.send(.GET, item.audioURL, auth: .cookie(owner))
            #expect(whole.bytes == book)

            let music = try await client.send(.POST, "/api/library", data: song, contentType: "audio/mpeg", auth: .cookie(owner),
                                              headers: ["X-File-Name": "song.mp3"]).decode(LibraryUploadResult.self).item
            #expect(music.kind == "music" && music.chapters.isEmpty && music.artworkURL == nil && music.track == 2)
            let noCover = try await client.send(.GET, "/api/library/\(music.id)/artwork", auth: .cookie(owner))
            #expect(noCover.status == .notFound)

            let books = try await client.send(.GET, "/api/library?kind=book", auth: .cookie(owner)).decode(LibraryList.self)
            #expect(books.items.map(\.id) == [item.id])
            let all = try await client.send(.GET, "/api/library", auth: .cookie(owner)).decode(LibraryList.self)
            #expect(Set(all.items.map(\.id)) == [item.id, music.id])
            #expect(try await client.send(.GET, "/api/library?kind=podcast", auth: .cookie(owner)).status == .badRequest)
        }
    }

    @Test("Listen's sleep timer: `until` answers the book or song on its own timeline ending there, faded, in its own format; past the end, the whole file",
          arguments: TestDatabase.all)
    func timerRendition(database: TestDatabase) async throws {
        let book = try await Self.audioFile("long.m4b", seconds: 50, title: "The Long Night", chapters: [("One", 0), ("Two", 40_000)])
        let song = try await Self.audioFile("long.mp3", seconds: 45, title: "Slow Song")
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let stranger = try await client.addUser("mallory", by: owner)
            for (data, type, name, contentType) in [(book, "audio/mp4", "long.m4b", "audio/mp4"), (song, "audio/mpeg", "long.mp3", "audio/mpeg")] {
                let item = try await client.send(.POST, "/api/library", data: data, contentType: type, auth: .cookie(owner),
                                                 headers: ["X-File-Name": name]).decode(LibraryUploadResult.self).item
                // The end of chapter one: 40 s, the last 30 faded.
                let timed = try await client.send(.GET, item.audioURL + "?until=40", auth: .cookie(owner))
                #expect(timed.status == .ok && timed.headers.contentType?.description == contentType, "\(name): \(timed.text.prefix(200))")
                let file = scratchFile("timed-" + name)
                try timed.bytes.write(to: file)
                let wav = try await CommandRunner.live.run("ffmpeg", ["-v", "error", "-i", file.path, "-ac", "1", "-f", "wav", "-"], nil)
                let heard = try WAVFile.decode(wav.output)
                let second = heard.sampleRate
                #expect(abs(heard.duration - 40) < 0.1, "\(name) lasts \(heard.duration) s")
                #expect(decibels(heard.rms(8 * second..<9 * second)) > -25)
                #expect(decibels(heard.rms(heard.samples.count - second / 10..<heard.samples.count)) < -45)
                // Range works on it, and the second ask is answered from what was made.
                let part = try await client.send(.GET, item.audioURL + "?until=40", auth: .cookie(owner), headers: ["Range": "bytes=0-99"])
                #expect(part.status == .partialContent && part.bytes == timed.bytes.prefix(100))
                // At or past the end: the file itself.
                let past = try await client.send(.GET, item.audioURL + "?until=3600", auth: .cookie(owner))
                #expect(past.status == .ok && past.bytes == data)
                #expect(try await client.send(.GET, item.audioURL + "?until=0", auth: .cookie(owner)).status == .badRequest)
                #expect(try await client.send(.GET, item.audioURL + "?until=soon", auth: .cookie(owner)).status == .badRequest)
                #expect(try await client.send(.GET, item.audioURL + "?until=40", auth: .cookie(stranger)).status == .notFound)
            }
        }
    }

    @Test("on an iPhone the level is in the bytes: `level` answers the song on its own timeline that many dB down, with Boost lifted under a limiter, with a timer faded too; a level out of range says what to send")
    func levelRendition() async throws {
        let song = try await Self.audioFile("level.mp3", seconds: 20, title: "Level Song")
        try await withTestApp(.sqlite) { client in
            let owner = try await client.setUpOwner()
            let item = try await client.send(.POST, "/api/library", data: song, contentType: "audio/mpeg", auth: .cookie(owner),
                                             headers: ["X-File-Name": "level.mp3"]).decode(LibraryUploadResult.self).item
            func heard(_ query: String) async throws -> AudioBuffer {
                let answer = try await client.send(.GET, item.audioURL + query, auth: .cookie(owner))
                #expect(answer.status == .ok && answer.headers.contentType?.description == "audio/mpeg", "\(query): \(answer.text.prefix(200))")
                let file = scratchFile("level.mp3")
                try answer.bytes.write(to: file)
                let wav = try await CommandRunner.live.run("ffmpeg", ["-v", "error", "-i", file.path, "-ac", "1", "-f", "wav", "-"], nil)
                return try WAVFile.decode(wav.output)
            }
            func level(_ buffer: AudioBuffer, second: Int) -> Double {
                decibels(buffer.rms(second * buffer.sampleRate..<(second + 1) * buffer.sampleRate))
            }
            let full = try await heard("")
            // A quarter is 12 dB down, at every second of the same length.
            let ducked = try await heard("?level=0.25")
            #expect(abs(ducked.duration - full.duration) < 0.1, "lasts \(ducked.duration) s of \(full.duration)")
            for second in [2, 10, 18] { #expect(abs(level(ducked, second: second) - level(full, second: second) + 12) < 0.5) }
            // Boost: louder, never past −1 dBFS by more than the encoder's rounding.
            let boosted = try await heard("?boost=true")
            #expect(level(boosted, second: 10) > level(full, second: 10) + 3)
            #expect(decibels(boosted.peak) < -0.5)
            // With the timer: down 6 dB, and (the 30 s fade being longer than the 12 s) falling
            // from there to silence at 12 s.
            let timed = try await heard("?until=12&level=0.5")
            #expect(abs(timed.duration - 12) < 0.1 && level(timed, second: 11) < level(full, second: 11) - 12)
            let first = level(timed, second: 0) - level(full, second: 0)
            #expect(first < -6 && first > -8, "\(first) dB in the first second")
            // Full level and no Boost: the file itself.
            #expect(try await client.send(.GET, item.audioURL + "?level=1", auth: .cookie(owner)).bytes == song)
            let wrong = try await client.send(.GET, item.audioURL + "?level=2", auth: .cookie(owner))
            #expect(wrong.status == .badRequest && wrong.text.contains("level: must be a number from 0 to 1"), "\(wrong.text)")
            #expect(try await client.send(.GET, item.audioURL + "?boost=maybe", auth: .cookie(owner)).status == .badRequest)
        }
    }

    @Test("a book's place and its chapters' played marks come from the one progress log: a natural end marks a chapter, unplayed clears it",
          arguments: TestDatabase.all)
    func playedMarks(database: TestDatabase) async throws {
        let book = try await Self.audioFile("marks.m4b", title: "Marks", chapters: [("One", 0), ("Two", 2_000), ("Three", 4_000)])
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let item = try await client.send(.POST, "/api/library", data: book, contentType: "audio/mp4", auth: .cookie(owner),
                                             headers: ["X-File-Name": "marks.m4b"]).decode(LibraryUploadResult.self).item
            #expect(item.progress == nil && item.chapters.allSatisfy { !$0.played })
            let key = "library:\(item.id)"
            var second = 0.0
            func send(_ events: [(String, Double, String)]) async throws -> HTTPStatus {
                let inputs = events.map { event -> ProgressEventInput in
                    second += 1
                    return ProgressEventInput(id: UUID().uuidString, item: event.0, device: "phone", at: client.clock.now.addingTimeInterval(-100 + second),
                                              position: event.1, kind: event.2)
                }
                return try await client.send(.POST, "/api/progress/events", json: ProgressEventsRequest(events: inputs), auth: .cookie(owner)).status
            }
            // Chapter one ends naturally; chapter two is half heard when the page closes.
            #expect(try await send([("\(key)/0", 2, "ended"), (key, 2.1, "play"), (key, 3.2, "pause")]) == .ok)
            var shown = try await client.send(.GET, "/api/library/\(item.id)", auth: .cookie(owner)).decode(LibraryItemInfo.self)
            #expect(shown.chapters.map(\.played) == [true, false, false])
            #expect(shown.progress?.position == 3.2 && shown.progress?.finished == false)
            let listed = try await client.send(.GET, "/api/library", auth: .cookie(owner)).decode(LibraryList.self)
            // The list carries a summary of the chapters, the page the chapters.
            #expect(listed.items.first?.progress?.position == 3.2 && listed.items.first?.chaptersPlayed == 1)
            #expect(listed.items.first?.chapters == [] && listed.items.first?.chapterCount == 3)

            // Mark All Played, then Mark All Unplayed: the marks go and the place returns to the start.
            #expect(try await send((0..<3).map { ("\(key)/\($0)", 2, "ended") }) == .ok)
            shown = try await client.send(.GET, "/api/library/\(item.id)", auth: .cookie(owner)).decode(LibraryItemInfo.self)
            #expect(shown.chapters.map(\.played) == [true, true, true])
            #expect(try await send((0..<3).map { ("\(key)/\($0)", 0, "unplayed") } + [(key, 0, "unplayed")]) == .ok)
            shown = try await client.send(.GET, "/api/library/\(item.id)", auth: .cookie(owner)).decode(LibraryItemInfo.self)
            #expect(shown.chapters.allSatisfy { !$0.played } && shown.progress?.position == 0)

            // Chapter keys are checked: a chapter number, a UUID, nothing else.
            for bad in ["\(key)/x", "\(key)/-1", "\(key)/10000", "\(key)/1/2", "\(key)/", "\(key)/+1", "library:nope/1"] {
                let answer = try await client.send(.POST, "/api/progress/events", json: ProgressEventsRequest(events: [
                    ProgressEventInput(id: "bad-\(bad)", item: bad, device: "phone", at: client.clock.now, position: 1, kind: "pause")]), auth: .cookie(owner))
                #expect(answer.status == .badRequest, "\(bad)")
            }
        }
    }

    @Test("the database picks each item's deciding event as ListeningProgress does over the whole log: ties, zeros, restarts",
          arguments: TestDatabase.all)
    func decidingInSQL(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            _ = try await client.setUpOwner()
            let ada = try #require(try await FluentUserRepository(database: client.app.db).all().first)
            let user = AuthenticatedUser(id: ada.id, username: ada.username, isOwner: true, tokenID: UUID(), tokenKind: .session,
                                         accountCreatedAt: Date())
            var generator = SystemRandomNumberGenerator()
            let base = client.clock.now.addingTimeInterval(-10_000)
            let kinds: [ProgressEvent.Kind] = [.play, .pause, .seek, .ended, .timer, .restart, .unplayed]
            var log: [String: [ProgressEvent]] = [:]
            for item in (0..<12).map({ "library:\(UUID().uuidString.lowercased())\($0 % 3 == 0 ? "/\($0)" : "")" }) {
                // Few distinct instants and positions, so ties (and the id's say) happen often.
                log[item] = (0..<Int.random(in: 1...25, using: &generator)).map { _ in
                    ProgressEvent(id: [UUID().uuidString, UUID().uuidString.lowercased(), "e-\(Int.random(in: 0...999, using: &generator))"].randomElement(using: &generator)!,
                                  device: "phone", at: base.addingTimeInterval(Double(Int.random(in: 0...3, using: &generator))),
                                  position: [0, 0, 5, 5, 12.5].randomElement(using: &generator)!, kind: kinds.randomElement(using: &generator)!)
                }
            }
            // A client id counts once for the person, whichever item it names (a retried upload):
            // an id drawn twice is kept only the first time, across all items.
            var seen = Set<String>()
            for (item, events) in log {
                var unique: [ProgressEvent] = []
                for event in events where seen.insert(event.id).inserted { unique.append(event) }
                log[item] = unique
                _ = try await FluentProgressRepository(database: client.app.db).append(unique, items: unique.map { _ in item }, ownedBy: user)
            }
            let deciding = try await FluentProgressRepository(database: client.app.db).deciding(prefixed: "library:", ownedBy: user)
            for (item, events) in log {
                #expect(deciding[item] == ListeningProgress.deciding(events), "\(item)")
            }
            #expect(Set(deciding.keys).isSubset(of: Set(log.keys)))
        }
    }

    @Test("the same file twice is found by its content; another person's item answers 404; files go when no one uses them",
          arguments: TestDatabase.all)
    func duplicatesIsolationAndCleanUp(database: TestDatabase) async throws {
        let song = try await Self.audioFile("song.m4a", seconds: 2, title: "Same Bytes", cover: true)
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let guest = try await client.addUser("grace", by: owner)
            let first = try await client.send(.POST, "/api/library", data: song, contentType: "audio/mp4", auth: .cookie(owner))
            #expect(first.status == .created)
            let again = try await client.send(.POST, "/api/library", data: song, contentType: "audio/mp4", auth: .cookie(owner))
            #expect(again.status == .ok)
            let mine = try first.decode(LibraryUploadResult.self).item
            #expect(try again.decode(LibraryUploadResult.self) == LibraryUploadResult(item: mine, duplicate: true))
            #expect(try await client.send(.GET, "/api/library", auth: .cookie(owner)).decode(LibraryList.self).items.count == 1)

            for path in ["/api/library/\(mine.id)", mine.audioURL, "/api/library/\(mine.id)/artwork"] {
                #expect(try await client.send(.GET, path, auth: .cookie(guest)).status == .notFound, "\(path)")
            }
            #expect(try await client.send(.DELETE, "/api/library/\(mine.id)", auth: .cookie(guest)).status == .notFound)
            #expect(try await client.send(.GET, "/api/library/not-a-uuid", auth: .cookie(owner)).status == .notFound)

            // Grace uploads the same bytes: her own item, sharing the one file.
            let hers = try await client.send(.POST, "/api/library", data: song, contentType: "audio/mp4", auth: .cookie(guest))
            #expect(hers.status == .created)
            let media = client.app.services.config.mediaDirectory("library")
            let artwork = client.app.services.config.mediaDirectory("artwork")
            func files(_ folder: URL) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") } }
            #expect(files(media).count == 1 && files(artwork).count == 1)

            // The owner deletes theirs: Grace's still plays.
            #expect(try await client.send(.DELETE, "/api/library/\(mine.id)", auth: .cookie(owner)).status == .noContent)
            let herItem = try hers.decode(LibraryUploadResult.self).item
            #expect(try await client.send(.GET, herItem.audioURL, auth: .cookie(guest)).bytes == song)

            // Removing Grace removes her item and, now unused, the file and the cover.
            let users = try await client.send(.GET, "/api/users", auth: .cookie(owner))
            let list = try #require(try JSONSerialization.jsonObject(with: users.bytes) as? [[String: Any]])
            let graceID = try #require(list.first { $0["username"] as? String == "grace" }?["id"] as? String)
            #expect(try await client.send(.DELETE, "/api/users/\(graceID)", auth: .cookie(owner)).status == .noContent)
            #expect(files(media).isEmpty && files(artwork).isEmpty)
        }
    }

    @Test("the store answers an item as it was written, chapters and readers included, finds it by its bytes, and shows each person only their own",
          arguments: TestDatabase.all)
    func storeValues(database: TestDatabase) async throws {
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let users = try await client.send(.GET, "/api/users", auth: .cookie(owner))
            let ada = try #require(try JSONSerialization.jsonObject(with: users.bytes) as? [[String: Any]]).first
            let idText = try #require(ada?["id"] as? String)
            let id = try #require(UUID(uuidString: idText))
            let user = AuthenticatedUser(id: id, username: try #require(ada?["username"] as? String), isOwner: true, tokenID: UUID(),
                                         tokenKind: .session, accountCreatedAt: Date())
            var stranger = user
            stranger.id = UUID()
            let library = FluentLibraryRepository(database: client.app.db)
            let written = LibraryItemRecord(
                id: UUID(), kind: "book", title: "The Night Land", author: "W. H. Hodgson", album: nil, year: "1912", track: nil, disc: nil,
                durationMs: 5_400_250, format: "mp3", fileHash: String(repeating: "ab", count: 32), byteSize: 81_000_000,
                originalName: "night-land.zip", artworkHash: String(repeating: "cd", count: 32),
                chapters: [LibraryChapter(title: "The Last Redoubt", start: 0, end: 2_700.5, readers: ["Ruth Golding"]),
                           LibraryChapter(title: "The Quest", start: 2_700.5, end: 5_400.25)],
                createdAt: nil)
            let made = try await library.create(written, ownerID: user.id)
            #expect(made.createdAt != nil)
            // The date as the database keeps it (PostgreSQL to the microsecond), the rest exactly as written.
            let found = try #require(try await library.find(written.id, ownedBy: user))
            var expected = written
            expected.createdAt = found.createdAt
            #expect(found == expected)
            #expect(try await library.find(written.id, ownedBy: stranger) == nil)
            #expect(try await library.find(fileHash: written.fileHash, ownerID: user.id) == found)
            #expect(try await library.find(fileHash: written.fileHash, ownerID: stranger.id) == nil)
            #expect(try await library.all(kind: "book", ownedBy: user) == [found])
            #expect(try await library.all(kind: "music", ownedBy: user).isEmpty)
            #expect(try await library.all(kind: nil, ownedBy: stranger).isEmpty)
            #expect(try await library.all(ownedBy: user.id) == [found])

            // The same bytes again for the same person are refused by the unique index.
            var again = written
            again.id = UUID()
            await #expect(throws: (any Error).self) { try await library.create(again, ownerID: user.id) }

            #expect(try await library.isUsed(fileHash: written.fileHash))
            #expect(try await library.isUsed(artworkHash: try #require(written.artworkHash)))
            #expect(try await library.delete(written.id, ownedBy: stranger) == nil)
            #expect(try await library.delete(written.id, ownedBy: user) == found)
            #expect(try await library.find(written.id, ownedBy: user) == nil)
            #expect(try await !library.isUsed(fileHash: written.fileHash))
        }
    }

    /// A zip of `entries` (path → bytes), stored or deflated.
    static func zipArchive(_ entries: [(String, Data)], deflate: Bool = false) throws -> Data {
        let url = scratchFile("parts.zip")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: deflate ? .deflate : .none) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return try Data(contentsOf: url)
    }

    @Test("a zip of MP3 parts becomes one book: a chapter per part by disc, track and name, playable as one file", arguments: TestDatabase.all)
    func zippedBook(database: TestDatabase) async throws {
        let first = try await Self.audioFile("a.mp3", seconds: 1.5, title: "Part One", frequency: 330)
        let second = try await Self.audioFile("b.mp3", seconds: 2, title: "Part Two", frequency: 440)
        let third = try await Self.audioFile("c.mp3", seconds: 1, title: "Part Three", frequency: 550)
        // Same track tag (2/9) on all: the natural order of the names decides.
        let zip = try Self.zipArchive([("Book/10 three.mp3", third), ("Book/2 two.mp3", second), ("Book/1 one.mp3", first),
                                ("__MACOSX/Book/._1 one.mp3", Data("resource fork".utf8)), ("Book/cover.txt", Data("x".utf8))])
        try await withTestApp(database) { client in
            let owner = try await client.setUpOwner()
            let reply = try await client.send(.POST, "/api/library", data: zip, contentType: "application/zip", auth: .cookie(owner),
                                              headers: ["X-File-Name": "The Parts.zip"])
            #expect(reply.status == .created, "\(reply.text)")
            let book = try reply.decode(LibraryUploadResult.self).item
            #expect(book.kind == "book" && book.format == "mp3" && book.title == "Night Songs" && book.author == "Ann Author")
            #expect(book.chapters.map(\.title) == ["Part One", "Part Two", "Part Three"])
            #expect(abs(book.chapters[1].start - book.chapters[0].end) < 1e-9)
            #expect(abs(book.duration - book.chapters[2].end) < 0.002, "\(book.duration) \(book.chapters)")
            #expect(abs(book.duration - 4.5) < 0.2)
            let audio = try await client.send(.GET, book.audioURL, auth: .cookie(owner))
            #expect(audio.status == .ok && audio.bytes.count == book.byteSize)

            let again = try await client.send(.POST, "/api/library", data: zip, contentType: "application/zip", auth: .cookie(owner))
            #expect(again.status == .ok)
            #expect(try again.decode(LibraryUploadResult.self).duplicate)
        }
    }

    @Test("hostile zips: a path outside the archive, a bomb, no MP3s, a damaged archive; nothing is kept")
    func hostileZips() async throws {
        let song = try await Self.audioFile("a.mp3", seconds: 1, title: "Fine")
        let traversal = try Self.zipArchive([("../../outside.mp3", song)])
        let bomb = try Self.zipArchive([("bomb.mp3", Data(count: 20 << 20))], deflate: true)
        let nothing = try Self.zipArchive([("notes.txt", Data("hello".utf8))])
        var damaged = try Self.zipArchive([("a.mp3", song)])
        damaged.replaceSubrange(damaged.count - 30..<damaged.count, with: Data(count: 30))
        try await withTestApp(.sqlite) { client in
            let owner = try await client.setUpOwner()
            let cases: [(Data, String)] = [(traversal, "outside itself"), (bomb, "expands far more than"), (nothing, "holds no MP3"), (damaged, "cannot be read")]
            for (body, message) in cases {
                let reply = try await client.send(.POST, "/api/library", data: body, contentType: "application/zip", auth: .cookie(owner))
                #expect(reply.status == .unprocessableEntity && reply.text.contains(message), "\(message): \(reply.status) \(reply.text)")
            }
            #expect(try await client.send(.GET, "/api/library", auth: .cookie(owner)).decode(LibraryList.self).items.isEmpty)
            for folder in [".incoming", "library"] {
                let path = client.app.services.config.mediaDirectory(folder).path
                #expect(((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).isEmpty, "\(folder)")
            }
            // Nothing named by the traversal entry was written anywhere in the data directory.
            let everything = FileManager.default.enumerator(atPath: client.app.services.config.dataDirectory)?.allObjects as? [String] ?? []
            #expect(!everything.isEmpty && !everything.contains { $0.hasSuffix("outside.mp3") }, "\(everything)")
        }
    }

    @Test("what is not audio, damaged, empty or too large is refused with a reason, and nothing is kept")
    func badUploads() async throws {
        let book = try await Self.audioFile("night.m4b", seconds: 4, title: "Cut Short", chapters: [("One", 0), ("Two", 2_000)])
        try await withTestApp(.sqlite, maxUploadBytes: 60_000) { client in
            let owner = try await client.setUpOwner()
            let text = try await client.send(.POST, "/api/library", raw: "just some words", contentType: "text/plain", auth: .cookie(owner))
            #expect(text.status == .unsupportedMediaType && text.text.contains("MP3, M4A or M4B"))
            let damaged = try await client.send(.POST, "/api/library", data: book.prefix(book.count / 2), contentType: "audio/mp4", auth: .cookie(owner))
            #expect(damaged.status == .unprocessableEntity && damaged.text.contains("damaged"), "\(damaged.text)")
            let empty = try await client.send(.POST, "/api/library", data: Data(), contentType: "audio/mp4", auth: .cookie(owner))
            #expect(empty.status == .badRequest)
            let large = try await client.send(.POST, "/api/library", data: Data(count: 70_000), contentType: "audio/mp4", auth: .cookie(owner))
            #expect(large.status == .payloadTooLarge && large.text.contains("REVERIE_MAX_UPLOAD_BYTES"))
            let kind = try await client.send(.POST, "/api/library?kind=film", data: book, contentType: "audio/mp4", auth: .cookie(owner))
            #expect(kind.status == .badRequest && kind.text.contains("kind"))
            let anonymous = try await client.send(.POST, "/api/library", data: book, contentType: "audio/mp4")
            #expect(anonymous.status == .unauthorized)

            #expect(try await client.send(.GET, "/api/library", auth: .cookie(owner)).decode(LibraryList.self).items.isEmpty)
            for folder in [".incoming", "library"] {
                let path = client.app.services.config.mediaDirectory(folder).path
                #expect(((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).isEmpty, "\(folder)")
            }
        }
    }
}
