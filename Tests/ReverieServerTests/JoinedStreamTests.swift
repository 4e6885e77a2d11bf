import AudioRender
import Foundation
@testable import ReverieServer
import ReverieAPI
import Speech
import Testing
import Vapor

@Suite("Joined streams: queued files one after another as one MP3 with a known length, so the next plays on a locked phone")
struct JoinedStreamTests {
    @Test("the plan: each part takes the whole 24 ms frames of its length, in order; a range is made from the frames that hold it; an end cuts it short")
    func plan() {
        let stream = JoinedStream([.init(name: "a", from: 0, length: 1.0), .init(name: "b", from: 10, length: 0.5), .init(name: "gone", from: 0, length: 0)])
        #expect(stream.parts.map(\.frames) == [42, 21] && stream.parts.map(\.firstFrame) == [0, 42])
        #expect(stream.frames == 63 && stream.byteCount == 63 * 384 && abs(stream.parts[1].start - 1.008) < 1e-9)
        // Bytes 40·384+100 … 44·384: the last two frames of `a` and the first frame of `b`.
        let pieces = stream.pieces(for: (40 * 384 + 100)...(42 * 384 + 10))
        #expect(pieces.map(\.part) == [0, 1] && pieces.map(\.frames) == [40..<42, 0..<1])
        #expect(stream.pieces(for: 0...(1 << 30)).map(\.frames) == [0..<42, 0..<21])
        // The second piece starts encoding 10 s into its file, plus its frames before.
        let arguments = JoinedStream([.init(name: "b", from: 10, length: 5)]).arguments(part: 0, frames: 25..<30, file: "/b.m4a")
        #expect(arguments.contains("10.600000") && arguments.contains("/b.m4a"))
        let timed = JoinedStream([.init(name: "a", from: 0, length: 100)], shape: .init(until: 60, fade: 30))
        #expect(timed.frames == 2_500 && timed.duration == 60)
        #expect(timed.arguments(part: 0, frames: 2_000..<2_100, file: "/a.mp3").contains { $0.contains("(12.000000-t)/30.000000") })
    }

    @Test("two songs and an episode that streams: the plan joins the songs and stops at the episode with why; the stream plays the first tone, then the second from where it was asked, in whole frames; a range from its middle is those bytes")
    func joined() async throws {
        let low = try await LibraryAPITests.audioFile("low.mp3", seconds: 3, title: "Low", frequency: 440)
        let high = try await LibraryAPITests.audioFile("high.m4a", seconds: 3, title: "High", frequency: 1_320)
        try await withTestApp(.sqlite) { client in
            let owner = try await client.setUpOwner()
            func upload(_ data: Data, _ name: String) async throws -> LibraryItemInfo {
                try await client.send(.POST, "/api/library?kind=music", data: data, contentType: "audio/mpeg", auth: .cookie(owner),
                                      headers: ["X-File-Name": name]).decode(LibraryUploadResult.self).item
            }
            let first = try await upload(low, "low.mp3"), second = try await upload(high, "high.m4a")
            let episode = "podcast:\(UUID().uuidString.lowercased())"
            let asked = "library:\(first.id),library:\(second.id)@1,\(episode)"
            let plan = try await client.send(.GET, "/api/streams?parts=\(asked)", auth: .cookie(owner)).decode(JoinedStreamInfo.self)
            #expect(plan.parts.map(\.item) == ["library:\(first.id)", "library:\(second.id)"])
            #expect(plan.stoppedAt == episode && plan.stopReason?.contains("not an episode of your podcasts") == true)
            // (An MP3 of 3 s lasts a few hundredths more: its encoder's last frame.)
            #expect(plan.parts[1].from == 1 && abs(plan.parts[1].start - 3.0) < 0.1 && abs(plan.duration - 5.0) < 0.12, "\(plan)")
            // The address carries each part's start and length: its timeline needs nothing the server has now.
            #expect(plan.audioURL.hasPrefix("/api/streams/audio?parts=library%3A\(first.id)%400.000%7E3.0") && plan.audioURL.contains("%2Clibrary%3A\(second.id)%401.000%7E2.000"),
                    "\(plan.audioURL)")

            let whole = try await client.send(.GET, plan.audioURL, auth: .cookie(owner))
            #expect(whole.status == .ok && whole.headers.first(name: .contentLength) == String(Int((plan.duration / 0.024).rounded()) * 384))
            #expect(JoinedStream.isFrames(Data(whole.bytes)))
            let heard = try await Self.decoded(Data(whole.bytes))
            #expect(abs(heard.duration - plan.duration) < 0.06)
            // Each part's tone in its place: 440 Hz until 3 s, then 1,320 Hz.
            for (at, frequency) in [(0.5, 440.0), (2.5, 440.0), (3.3, 1_320.0), (4.7, 1_320.0)] {
                let found = Self.frequency(heard, at: at)
                #expect(abs(found - frequency) < frequency * 0.05, "at \(at) s: \(found) Hz")
            }
            // A range from the middle of a frame, across the join: 206, exactly those bytes.
            let range = 120 * 384 + 17...130 * 384 + 99
            let part = try await client.send(.GET, plan.audioURL, auth: .cookie(owner), headers: ["Range": "bytes=\(range.lowerBound)-\(range.upperBound)"])
            #expect(part.status == .partialContent && part.bytes.count == range.count)
            #expect(part.headers.first(name: .contentRange) == "bytes \(range.lowerBound)-\(range.upperBound)/\(whole.bytes.count)")
            // From a frame's start, the rest: whole frames, the second tone.
            let tail = try await client.send(.GET, plan.audioURL, auth: .cookie(owner), headers: ["Range": "bytes=\(150 * 384)-"])
            #expect(tail.status == .partialContent && JoinedStream.isFrames(Data(tail.bytes)) && tail.bytes.count == whole.bytes.count - 150 * 384)
            let rest = try await Self.decoded(Data(tail.bytes))
            #expect(abs(Self.frequency(rest, at: 0.5) - 1_320) < 66)
            // The sleep timer's end: 4 s, the last of it fading.
            let timed = try await client.send(.GET, plan.audioURL + "&until=4", auth: .cookie(owner))
            #expect(timed.status == .ok && timed.bytes.count == Int((4 / 0.024).rounded(.up)) * 384)
            let head = try await client.send(.HEAD, plan.audioURL, auth: .cookie(owner))
            #expect(head.status == .ok && head.headers.first(name: .contentLength) == String(whole.bytes.count) && head.bytes.isEmpty, "\(head.status) \(head.headers)")

            // Another person: neither song is theirs.
            let other = try await client.addUser("bob", by: owner)
            let theirs = try await client.send(.GET, "/api/streams?parts=library:\(first.id)", auth: .cookie(other)).decode(JoinedStreamInfo.self)
            #expect(theirs.parts.isEmpty && theirs.audioURL.isEmpty && theirs.stopReason == "It is not in your library.")
            #expect(try await client.send(.GET, plan.audioURL, auth: .cookie(other)).status == .notFound)
            // A part without its length has its file's (a file's rendition through the stream).
            let alone = try await client.send(.GET, "/api/streams/audio?parts=library:\(first.id)&level=0.5", auth: .cookie(owner))
            #expect(alone.status == .ok && alone.bytes.count == Int((plan.parts[0].length / 0.024).rounded(.up)) * 384)
            // Words that are not parts.
            for wrong in ["", "library:\(first.id)@-1", "nothing", Array(repeating: "library:\(first.id)", count: 51).joined(separator: ",")] {
                let answer = try await client.send(.GET, "/api/streams?parts=\(wrong)", auth: .cookie(owner))
                #expect(answer.status == .badRequest && answer.text.contains("parts"), "\(wrong.prefix(40)): \(answer.text)")
            }
            #expect(try await client.send(.GET, plan.audioURL, auth: .none).status == .unauthorized)

            // The second song deleted while the stream plays (as an episode's download is, once
            // played): the stream keeps its length and timeline, the second part is silence.
            #expect(try await client.send(.DELETE, "/api/library/\(second.id)", auth: .cookie(owner)).status == .noContent)
            let after = try await client.send(.GET, plan.audioURL, auth: .cookie(owner))
            #expect(after.status == .ok && after.bytes.count == whole.bytes.count)
            let kept = try await Self.decoded(Data(after.bytes))
            #expect(abs(Self.frequency(kept, at: 1.0) - 440) < 22 && decibels(kept.rms(Int(3.5 * Double(kept.sampleRate))..<Int(4.5 * Double(kept.sampleRate)))) < -60)
            // Gone where the range starts: said so.
            let gone = try await client.send(.GET, plan.audioURL, auth: .cookie(owner), headers: ["Range": "bytes=\(150 * 384)-"])
            #expect(gone.status == .notFound && gone.text.contains("not_joinable"), "\(gone.text)")
        }
    }

    @Test("an article's spoken part joins once it is spoken: a song, then a finished render (its tone after the song's); a render still being spoken, or another person's, ends the plan before it, with why")
    func spoken() async throws {
        let song = try await LibraryAPITests.audioFile("low.mp3", seconds: 3, title: "Low", frequency: 440)
        let engine = GatedEngine()
        try await withTestApp(.sqlite, speech: SpeechEngines([engine])) { client in
            let owner = try await client.setUpOwner()
            let item = try await client.send(.POST, "/api/library?kind=music", data: song, contentType: "audio/mpeg", auth: .cookie(owner),
                                             headers: ["X-File-Name": "low.mp3"]).decode(LibraryUploadResult.self).item
            let started = try await client.startRender("Breathe in slowly now and let the day go.", format: "mp3", as: owner).decode(SpeechRenderInfo.self)
            let spoken = "speech:\(started.id.uuidString.lowercased())"
            let asked = "/api/streams?parts=library:\(item.id),\(spoken)"
            let waiting = try await client.send(.GET, asked, auth: .cookie(owner)).decode(JoinedStreamInfo.self)
            #expect(waiting.parts.map(\.item) == ["library:\(item.id)"] && waiting.stoppedAt == spoken && waiting.stopReason == "It is still being spoken.",
                    "\(waiting)")
            engine.open()
            let render = try await client.waitForRender(started.id, as: owner)
            let seconds = Double(try #require(render.durationMs)) / 1000
            let plan = try await client.send(.GET, asked, auth: .cookie(owner)).decode(JoinedStreamInfo.self)
            #expect(plan.parts.map(\.item) == ["library:\(item.id)", spoken] && plan.stoppedAt == nil, "\(plan)")
            #expect(abs(plan.parts[1].length - seconds) < 0.05 && abs(plan.duration - plan.parts[1].start - seconds) < 0.05, "\(plan)")
            // The song's tone, then the spoken part's (the test engine speaks 330 Hz).
            let heard = try await Self.decoded(Data(try await client.send(.GET, plan.audioURL, auth: .cookie(owner)).bytes))
            #expect(abs(Self.frequency(heard, at: 1.5) - 440) < 22)
            #expect(abs(Self.frequency(heard, at: plan.parts[1].start + 0.6) - 330) < 17)
            // Another person's render is not theirs to join.
            let other = try await client.addUser("bob", by: owner)
            let theirs = try await client.send(.GET, "/api/streams?parts=\(spoken)", auth: .cookie(other)).decode(JoinedStreamInfo.self)
            #expect(theirs.parts.isEmpty && theirs.stopReason == "It is not a render of yours.")
            #expect(try await client.send(.GET, plan.audioURL, auth: .cookie(other)).status == .notFound)
            let wrong = try await client.send(.GET, "/api/streams?parts=speech:nothing", auth: .cookie(owner))
            #expect(wrong.status == .badRequest && wrong.text.contains("speech:<render id>"), "\(wrong.text)")
        }
    }

    @Test("a LibriVox book's sections, on another server, join as a downloaded file does: each its length, the second from where it was asked, a range from inside one fetched with a Range of its own; what cannot be joined says why",
          arguments: ["mp3", "m4a"])
    func remoteSections(_ kind: String) async throws {
        // (An M4A as ffmpeg writes it: its movie box last, its chapters a text track of their own;
        // the bytes between chunks are stepped over in MP4AudioTests.handMade.)
        let parts = [try await LibraryAPITests.audioFile("1.\(kind)", seconds: 4, title: "one", chapters: [("One", 0), ("Two", 2_000)], frequency: 440),
                     try await LibraryAPITests.audioFile("2.\(kind)", seconds: 4, title: "two", frequency: 1_320)]
        let site = try await FixtureSite.start(sections: parts)
        do {
            try await withTestApp(.sqlite, adjust: { config in
                config.allowPrivateFetches = true
                config.librivoxBaseURL = site.url
            }) { client in
                let owner = try await client.setUpOwner()
                let plan = try await client.send(.GET, "/api/streams?parts=librivox:47/0,librivox:47/1@1,librivox:47", auth: .cookie(owner))
                    .decode(JoinedStreamInfo.self)
                try #require(plan.parts.map(\.item) == ["librivox:47/0", "librivox:47/1"], "\(plan)")
                #expect(plan.stoppedAt == "librivox:47" && plan.stopReason == "A LibriVox book is joined section by section.")
                // Each section's length is its file's, read from its first bytes (4 s and a frame or two of the encoder's).
                #expect(abs(plan.parts[0].length - 4.0) < 0.1 && plan.parts[1].from == 1 && abs(plan.parts[1].length - 3.0) < 0.1, "\(plan.parts)")
                let whole = try await client.send(.GET, plan.audioURL, auth: .cookie(owner))
                #expect(whole.status == .ok && JoinedStream.isFrames(Data(whole.bytes)))
                let heard = try await Self.decoded(Data(whole.bytes))
                let seam = plan.parts[1].start
                for (at, frequency) in [(0.5, 440.0), (seam - 0.3, 440.0), (seam + 0.3, 1_320.0), (plan.duration - 0.4, 1_320.0)] {
                    let found = Self.frequency(heard, at: at)
                    #expect(abs(found - frequency) < frequency * 0.05, "at \(at) s: \(found) Hz")
                }
                // The second section is heard from its second 1: the sound there is the file's at 1 s
                // (a tone's phase aside, the same level), and it lasts to the file's end.
                #expect(abs(heard.duration - plan.duration) < 0.06)
                // A range from inside the second section: made from bytes fetched near that second.
                let from = Int((seam + 1.5) / JoinedStream.frameSeconds) * JoinedStream.frameBytes
                let tail = try await client.send(.GET, plan.audioURL, auth: .cookie(owner), headers: ["Range": "bytes=\(from)-"])
                #expect(tail.status == .partialContent && tail.bytes.count == whole.bytes.count - from && JoinedStream.isFrames(Data(tail.bytes)))
                let rest = try await Self.decoded(Data(tail.bytes))
                #expect(abs(Self.frequency(rest, at: 0.3) - 1_320) < 66)
                // … and in time: its samples are the whole stream's from there.
                let rate = Double(rest.sampleRate), start = Double(from) / Double(JoinedStream.frameBytes) * JoinedStream.frameSeconds
                let window = Int(0.2 * rate)..<Int(1.0 * rate)
                let difference = zip(rest.samples[window], heard.samples[(window.lowerBound + Int(start * rate))...]).map { $0 - $1 }
                let apart = sqrt(difference.map { $0 * $0 }.reduce(0, +) / Float(difference.count))
                #expect(apart < 0.1 * rest.rms(window), "the range is \(decibels(apart) - decibels(rest.rms(window))) dB from the whole")

                // What cannot be joined: a section the book does not have, a book LibriVox does not have.
                let missing = try await client.send(.GET, "/api/streams?parts=librivox:47/0,librivox:47/5", auth: .cookie(owner)).decode(JoinedStreamInfo.self)
                #expect(missing.parts.count == 1 && missing.stopReason == "The book has no such section.")
                let unknown = try await client.send(.GET, "/api/streams?parts=librivox:48/0", auth: .cookie(owner)).decode(JoinedStreamInfo.self)
                #expect(unknown.parts.isEmpty && unknown.stopReason == "LibriVox has no such book.")
            }
        } catch {
            await site.stop()
            throw error
        }
        await site.stop()
    }

    @Test("consecutive ranges, as Safari reads a stream, play as the whole does: no gap at a seam, the same samples after it")
    func seams() async throws {
        let tone = try await LibraryAPITests.audioFile("tone.mp3", seconds: 3, title: "Tone", frequency: 440)
        try await withTestApp(.sqlite) { client in
            let owner = try await client.setUpOwner()
            let song = try await client.send(.POST, "/api/library?kind=music", data: tone, contentType: "audio/mpeg", auth: .cookie(owner),
                                             headers: ["X-File-Name": "tone.mp3"]).decode(LibraryUploadResult.self).item
            let plan = try await client.send(.GET, "/api/streams?parts=library:\(song.id),library:\(song.id)", auth: .cookie(owner))
                .decode(JoinedStreamInfo.self)
            let whole = try await client.send(.GET, plan.audioURL, auth: .cookie(owner))
            // Read in three ranges, split at frames 50 and 90 (1.2 s and 2.16 s in).
            let seams = [50, 90]
            var joined = Data()
            for (from, to) in zip([0] + seams, seams + [whole.bytes.count / 384]) {
                let part = try await client.send(.GET, plan.audioURL, auth: .cookie(owner), headers: ["Range": "bytes=\(from * 384)-\(to * 384 - 1)"])
                #expect(part.status == .partialContent && part.bytes.count == (to - from) * 384)
                joined.append(Data(part.bytes))
            }
            #expect(joined.count == whole.bytes.count)
            let heard = try await Self.decoded(joined), reference = try await Self.decoded(Data(whole.bytes))
            let rate = Double(heard.sampleRate), level = reference.rms(Int(0.2 * rate)..<Int(1.0 * rate))
            for seam in seams.map({ Double($0) * JoinedStream.frameSeconds }) {
                // Every 5 ms around the seam sounds (a fresh encoder's first frame is 23 ms of silence) …
                let quietest = stride(from: seam - 0.05, to: seam + 0.05, by: 0.005).map { at in
                    heard.rms(Int(at * rate)..<Int((at + 0.005) * rate))
                }.min() ?? 0
                #expect(quietest > 0.5 * level, "at the seam \(seam) s the stream fell to \(decibels(quietest) - decibels(level)) dB")
                // … and after it the samples are the whole stream's, in time.
                let after = Int((seam + 0.05) * rate)..<Int((seam + 0.5) * rate)
                let difference = zip(heard.samples[after], reference.samples[after]).map { $0 - $1 }
                let apart = sqrt(difference.map { $0 * $0 }.reduce(0, +) / Float(difference.count))
                #expect(apart < 0.1 * level, "after the seam \(seam) s the stream is \(decibels(apart) - decibels(level)) dB from the whole")
            }
        }
    }

    static func decoded(_ mp3: Data) async throws -> AudioBuffer {
        let file = scratchFile("joined.mp3")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try mp3.write(to: file)
        let wav = try await CommandRunner.live.run("ffmpeg", ["-v", "error", "-i", file.path, "-ac", "1", "-f", "wav", "-"], nil)
        return try WAVFile.decode(wav.output)
    }

    /// The tone's frequency over a tenth of a second from `at`, by its rising zero crossings.
    static func frequency(_ buffer: AudioBuffer, at: Double) -> Double {
        let start = Int(at * Double(buffer.sampleRate)), count = buffer.sampleRate / 10
        let window = buffer.samples[start..<min(buffer.samples.count, start + count)]
        var crossings = 0
        var previous = window.first ?? 0
        for sample in window.dropFirst() {
            if previous < 0 && sample >= 0 { crossings += 1 }
            previous = sample
        }
        return Double(crossings) * 10
    }
}
