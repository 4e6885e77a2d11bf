import AudioRender
import Foundation
import ReverieAPI
@testable import ReverieServer
import Testing
import Vapor

@Suite("A song's player: attached tracks, the saved A–B loop, practice speeds and the rendered loop's joins")
struct SongTrackAPITests {
    /// Four seconds of a stereo chord (no channel a plain sine, so zero crossings are irregular),
    /// tagged, as MP3.
    static func chord() async throws -> Data {
        let folder = scratchFile("x").deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("beat.mp3")
        let left = "0.3*sin(2*PI*220*t)+0.2*sin(2*PI*331*t)+0.1*sin(2*PI*1047*t)"
        let right = "0.3*sin(2*PI*220*t)+0.2*sin(2*PI*277*t)+0.1*sin(2*PI*880*t)"
        let result = try await CommandRunner.live.run("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "aevalsrc=\(left)|\(right):s=44100:d=4",
                                                                 "-metadata", "title=Demo Beat", "-metadata", "artist=Kit Drummer",
                                                                 "-c:a", "libmp3lame", "-b:a", "192k", output.path], nil)
        #expect(result.status == 0, "\(String(decoding: result.errors, as: UTF8.self))")
        return try Data(contentsOf: output)
    }

    static func upload(_ data: Data, _ client: TestClient, as user: String, kind: String = "music") async throws -> LibraryItemInfo {
        try await client.send(.POST, "/api/library?kind=\(kind)", data: data, contentType: "audio/mpeg", auth: .cookie(user),
                              headers: ["X-File-Name": "beat.mp3"]).decode(LibraryUploadResult.self).item
    }

    @Test("attach a music item (title and artist from its tags), save the loop with the song, detach; someone else's answers 404", arguments: TestDatabase.all)
    func attachAndDetach(database: TestDatabase) async throws {
        let beat = try await Self.chord()
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let grace = try await client.addUser("grace", by: ada)
            let song = try await client.compose("Chorus", "We loop the night", as: ada)
            let item = try await Self.upload(beat, client, as: ada)
            let tracks = "/api/compositions/\(song.id)/tracks"
            #expect(try await client.send(.GET, tracks, auth: .cookie(ada)).decode([SongTrack].self).isEmpty)

            let attached = try await client.send(.POST, tracks, json: SongTrackAttach(itemID: try #require(UUID(uuidString: item.id))), auth: .cookie(ada))
            #expect(attached.status == .created, "\(attached.text)")
            let track = try attached.decode(SongTrack.self)
            #expect(track.title == "Demo Beat" && track.artist == "Kit Drummer" && track.loop == nil && abs(track.durationMs - 4000) < 100)
            // Attaching it again changes nothing.
            #expect(try await client.send(.POST, tracks, json: SongTrackAttach(itemID: try #require(UUID(uuidString: item.id))), auth: .cookie(ada)).status == .ok)

            let loop = SongLoopPoints(start: 1.0, end: 3.0, enabled: true)
            let saved = try await client.send(.PUT, "\(tracks)/\(track.id)/loop", json: loop, auth: .cookie(ada))
            #expect(try saved.status == .ok && saved.decode(SongTrack.self).loop == loop)
            #expect(try await client.send(.GET, tracks, auth: .cookie(ada)).decode([SongTrack].self).first?.loop == loop)
            for bad in [SongLoopPoints(start: 2, end: 2.05, enabled: true), SongLoopPoints(start: -1, end: 2, enabled: true),
                        SongLoopPoints(start: 1, end: 9, enabled: true)] {
                #expect(try await client.send(.PUT, "\(tracks)/\(track.id)/loop", json: bad, auth: .cookie(ada)).status == .badRequest)
            }

            // Grace sees none of it: not the song's tracks, not the track, not by attaching Ada's item to her song.
            let hers = try await client.compose("Hers", "", as: grace)
            #expect(try await client.send(.GET, tracks, auth: .cookie(grace)).status == .notFound)
            #expect(try await client.send(.GET, "\(tracks)/\(track.id)/audio", auth: .cookie(grace)).status == .notFound)
            #expect(try await client.send(.PUT, "\(tracks)/\(track.id)/loop", json: loop, auth: .cookie(grace)).status == .notFound)
            #expect(try await client.send(.DELETE, "\(tracks)/\(track.id)", auth: .cookie(grace)).status == .notFound)
            let stolen = try await client.send(.POST, "/api/compositions/\(hers.id)/tracks", json: SongTrackAttach(itemID: try #require(UUID(uuidString: item.id))), auth: .cookie(grace))
            #expect(stolen.status == .notFound)
            // The track under another of Ada's songs is not found either.
            let other = try await client.compose("Other", "", as: ada)
            #expect(try await client.send(.GET, "/api/compositions/\(other.id)/tracks/\(track.id)/audio", auth: .cookie(ada)).status == .notFound)

            let audio = try await client.send(.GET, "\(tracks)/\(track.id)/audio", auth: .cookie(ada))
            #expect(audio.status == .ok && audio.bytes.count == beat.count)

            #expect(try await client.send(.DELETE, "\(tracks)/\(track.id)", auth: .cookie(ada)).status == .noContent)
            #expect(try await client.send(.GET, tracks, auth: .cookie(ada)).decode([SongTrack].self).isEmpty)
            #expect(try await client.send(.DELETE, "\(tracks)/\(track.id)", auth: .cookie(ada)).status == .notFound)
            // The music stays in Listen.
            #expect(try await client.send(.GET, "/api/library/\(item.id)", auth: .cookie(ada)).status == .ok)

            // A book is not a track.
            let book = try await Self.upload(beat, client, as: grace, kind: "book")
            #expect(try await client.send(.POST, "/api/compositions/\(hers.id)/tracks", json: SongTrackAttach(itemID: try #require(UUID(uuidString: book.id))), auth: .cookie(grace)).status == .notFound)
        }
    }

    @Test("the rendered loop repeats A–B with no sample lost, and its joins jump no more than the music does", arguments: [TestDatabase.sqlite])
    func loopJoins(database: TestDatabase) async throws {
        let beat = try await Self.chord()
        try await withTestApp(database) { client in
            let ada = try await client.setUpOwner()
            let song = try await client.compose("Chorus", "", as: ada)
            let item = try await Self.upload(beat, client, as: ada)
            let tracks = "/api/compositions/\(song.id)/tracks"
            let track = try await client.send(.POST, tracks, json: SongTrackAttach(itemID: try #require(UUID(uuidString: item.id))), auth: .cookie(ada)).decode(SongTrack.self)
            #expect(try await client.send(.GET, "\(tracks)/\(track.id)/loop", auth: .cookie(ada)).status == .conflict)
            // Ends placed where the chord is far from zero: cut there, the join would click.
            let (start, end) = (1.2013, 2.4567)
            _ = try await client.send(.PUT, "\(tracks)/\(track.id)/loop", json: SongLoopPoints(start: start, end: end, enabled: true), auth: .cookie(ada))
            let rendered = try await client.send(.GET, "\(tracks)/\(track.id)/loop?repeats=20", auth: .cookie(ada))
            #expect(rendered.status == .ok && rendered.headers.contentType?.description == "audio/flac", "\(rendered.text.prefix(300))")
            #expect(rendered.headers.first(name: .contentDisposition)?.hasPrefix("attachment; filename=\"Demo Beat loop") == true)

            let file = scratchFile("loop.flac")
            try Data(rendered.bytes).write(to: file)
            let probe = try await AudioFiles().probe(file)
            let loop = try await AudioFiles().decodeSection(file, from: 0, to: probe.duration)
            #expect(loop.channels == 2 && loop.sampleRate == 44100)
            // Twenty passes of one length, within the snap radius of B − A.
            #expect(loop.frameCount % 20 == 0)
            let length = loop.frameCount / 20
            #expect(abs(Double(length) / 44100 - (end - start)) <= 2 * SongLoop.snapRadius)
            // Every pass is the same samples.
            let pass = Array(loop.samples[0..<(length * 2)])
            #expect((1..<20).allSatisfy { Array(loop.samples[($0 * length * 2)..<(($0 + 1) * length * 2)]) == pass })
            let (joins, inside) = loop.joins(loopLength: length)
            #expect(joins.count == 19)
            #expect(joins.allSatisfy { $0 <= inside }, "joins \(joins.max() ?? 0) vs the music's largest step \(inside)")

            // The same section cut where asked, without snapping, clicks: the check above can fail.
            let beatFile = scratchFile("beat.mp3")
            try beat.write(to: beatFile)
            let source = try await AudioFiles().decodeSection(beatFile, from: start, to: end)
            let naive = source.repeated(0..<source.frameCount, times: 3).joins(loopLength: source.frameCount)
            #expect(naive.joins.contains { $0 > naive.largestInside }, "\(naive.joins) vs \(naive.largestInside)")

            // A practice speed keeps the length in proportion (pitch is atempo's to keep).
            let slow = try await client.send(.GET, "\(tracks)/\(track.id)/audio?speed=0.5", auth: .cookie(ada))
            #expect(slow.status == .ok && slow.headers.contentType?.description == "audio/flac")
            let slowFile = scratchFile("slow.flac")
            try Data(slow.bytes).write(to: slowFile)
            #expect(abs(try await AudioFiles().probe(slowFile).duration - 8) < 0.2)
            #expect(try await client.send(.GET, "\(tracks)/\(track.id)/audio?speed=3", auth: .cookie(ada)).status == .badRequest)
        }
    }
}
