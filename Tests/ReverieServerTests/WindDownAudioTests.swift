import AudioRender
import Foundation
@testable import ReverieServer
import SleepLibrary
import Speech
import SpokenScript
import Testing
import Vapor
import SharedCases

@Suite("Wind Down audio: streaming, the timer rendition, and the owner's uploads and scripts")
struct WindDownAudioTests {
    struct Entry: Decodable {
        struct Inner: Decodable { var id: String; var duration: Int }
        struct Audio: Decodable { var state: String; var url: String?; var source: String?; var originalName: String?; var made: Double? }
        var item: Inner
        var comingSoon: Bool
        var audio: Audio
    }

    /// A WAV of a quiet tone.
    func wav(seconds: Double, decibels: Double = -30) -> Data {
        let rate = 22050
        let gain = amplitude(decibels: decibels)
        return WAVFile.encode(AudioBuffer(sampleRate: rate, samples: (0..<AudioBuffer.sampleCount(seconds, rate)).map {
            gain * Float(sin(2 * Double.pi * 523 * Double($0) / Double(rate)))
        }))
    }

    @Test("the owner takes an item's audio away (Coming Soon), then uploads a file: levelled, measured, streamed with Range, faded for a timer; removing it brings the catalog's back", arguments: TestDatabase.all)
    func upload(database: TestDatabase) async throws {
        try await withTestApp(database, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let owner = try await client.setUpOwner()
            let guest = try await client.addUser("grace", by: owner)
            let catalog = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep", auth: .cookie(guest)).decode(Entry.self)
            #expect(!catalog.comingSoon && catalog.audio.state == "speaking" && catalog.audio.source == "bundled")
            #expect(try await client.send(.PUT, "/api/winddown/hypnosis_deep_sleep/removed", auth: .cookie(guest)).status == .forbidden)
            let taken = try await client.send(.PUT, "/api/winddown/hypnosis_deep_sleep/removed", auth: .cookie(owner)).decode(Entry.self)
            #expect(taken.comingSoon && taken.audio.state == "none" && taken.audio.source == "removed")
            let before = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep", auth: .cookie(guest)).decode(Entry.self)
            #expect(before.comingSoon && before.audio.state == "none")
            #expect(try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep/live/audio", auth: .cookie(guest)).status == .notFound)
            let missing = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep/audio", auth: .cookie(guest))
            #expect(missing.status == .notFound && missing.text.contains("coming_soon"))

            // Only the owner adds audio.
            let refused = try await client.send(.PUT, "/api/winddown/hypnosis_deep_sleep/audio", data: wav(seconds: 3), contentType: "audio/wav", auth: .cookie(guest))
            #expect(refused.status == .forbidden)

            let added = try await client.send(.PUT, "/api/winddown/hypnosis_deep_sleep/audio", data: wav(seconds: 62.5), contentType: "audio/wav",
                                              auth: .cookie(owner), headers: ["X-File-Name": "deep.wav"])
            // Accepted at once and levelled in the background: preparing, then ready.
            #expect(added.status == .accepted, "\(added.text)")
            let accepted = try added.decode(Entry.self)
            #expect(!accepted.comingSoon && accepted.audio.source == "upload" && accepted.audio.originalName == "deep.wav")
            #expect(["preparing", "ready"].contains(accepted.audio.state))
            let entry: Entry = try await eventually("the upload levelled") {
                let reply = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep", auth: .cookie(guest))
                // A machine starved while levelling may answer the designed 503 (no database
                // connection came free in time): busy, not wrong; ask again.
                if reply.status == .serviceUnavailable { return nil }
                let entry = try reply.decode(Entry.self)
                return entry.audio.state == "preparing" ? nil : entry
            }
            #expect(!entry.comingSoon && entry.audio.state == "ready" && entry.audio.source == "upload" && entry.audio.originalName == "deep.wav")
            #expect(abs(entry.item.duration - 63) <= 1)   // measured, not the catalog's

            // Everyone hears it; Range works.
            let part = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep/audio", auth: .cookie(guest), headers: ["Range": "bytes=0-1023"])
            #expect(part.status == .partialContent && part.bytes.count == 1024)
            let whole = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep/audio", auth: .cookie(guest))
            let file = scratchFile("upload.m4a")
            try whole.bytes.write(to: file)
            #expect(abs(try await AudioFiles().loudness(of: file) - (-16)) < 1)

            // The timer's rendition ends at the timer.
            let timed = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep/audio?until=40", auth: .cookie(guest))
            #expect(timed.status == .ok)
            let rendition = scratchFile("rendition.m4a")
            try timed.bytes.write(to: rendition)
            #expect(abs(try await AudioFiles().probe(rendition).duration - 40) < 0.05)
            let bad = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep/audio?until=-3", auth: .cookie(guest))
            #expect(bad.status == .badRequest)
            // A timer ending at or past the item's end, or far past it, hears the whole item.
            for until in ["62.95", "63", "64.5", "3600", "86400"] {
                let past = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep/audio?until=\(until)", auth: .cookie(guest))
                #expect(past.status == .ok && past.bytes == whole.bytes, "until=\(until): \(past.status) \(past.text.prefix(200))")
            }
            // One that ends within the first fade's length fades from the start.
            let short = try await client.send(.GET, "/api/winddown/hypnosis_deep_sleep/audio?until=1", auth: .cookie(guest))
            #expect(short.status == .ok, "\(short.text.prefix(200))")
            try short.bytes.write(to: rendition)
            #expect(abs(try await AudioFiles().probe(rendition).duration - 1) < 0.05)

            // Removing it brings the catalog's own back.
            let removed = try await client.send(.DELETE, "/api/winddown/hypnosis_deep_sleep/audio", auth: .cookie(owner)).decode(Entry.self)
            #expect(!removed.comingSoon && removed.audio.state == "speaking" && removed.audio.source == "bundled")
        }
    }

    @Test("uploads that are not audio, empty or too large are refused with a reason, and nothing is kept")
    func badUploads() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)]), maxUploadBytes: 200_000) { client in
            let owner = try await client.setUpOwner()
            let text = try await client.send(.PUT, "/api/winddown/affirmation_self_love/audio", raw: "not audio at all", contentType: "audio/mpeg", auth: .cookie(owner))
            #expect(text.status == .unsupportedMediaType && text.text.contains("MP3, M4A, Ogg or WAV"))
            let empty = try await client.send(.PUT, "/api/winddown/affirmation_self_love/audio", data: Data(), contentType: "audio/wav", auth: .cookie(owner))
            #expect(empty.status == .badRequest)
            let large = try await client.send(.PUT, "/api/winddown/affirmation_self_love/audio", data: wav(seconds: 10), contentType: "audio/wav", auth: .cookie(owner))
            #expect(large.status == .payloadTooLarge && large.text.contains("REVERIE_MAX_UPLOAD_BYTES"))
            let unknown = try await client.send(.PUT, "/api/winddown/no_such_item/audio", data: wav(seconds: 1), contentType: "audio/wav", auth: .cookie(owner))
            #expect(unknown.status == .notFound)
            let after = try await client.send(.GET, "/api/winddown/affirmation_self_love", auth: .cookie(owner)).decode(Entry.self)
            #expect(!after.comingSoon && after.audio.source == "bundled")
            // Silence is audio, but it cannot be levelled: accepted, then failed with the reason.
            let silent = try await client.send(.PUT, "/api/winddown/affirmation_self_love/audio", data: wav(seconds: 2, decibels: -200),
                                               contentType: "audio/wav", auth: .cookie(owner))
            #expect(silent.status == .accepted, "\(silent.text)")
            let failed = try await eventually("the silent upload's levelling to end") {
                let entry = try await client.send(.GET, "/api/winddown/affirmation_self_love", auth: .cookie(owner))
                return entry.text.contains("\"preparing\"") ? nil : entry
            }
            #expect(failed.text.contains("\"failed\"") && failed.text.contains("could not be levelled"), "\(failed.text.prefix(300))")
            // Taking the failed upload away clears it: the catalog's own audio again.
            _ = try await client.send(.DELETE, "/api/winddown/affirmation_self_love/audio", auth: .cookie(owner))
            let back = try await client.send(.GET, "/api/winddown/affirmation_self_love", auth: .cookie(owner)).decode(Entry.self)
            #expect(!back.comingSoon && back.audio.state == "speaking" && back.audio.source == "bundled")
            let media = client.app.services.config.mediaDirectory("winddown")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: media.path)) ?? []).isEmpty)
        }
    }

    @Test("an MP3 of 2 s whose header says 10 hours is taken at its 2 s, not refused as 600 minutes long (issue 50)")
    func lyingLength() async throws {
        var bytes = [UInt8](try await LibraryAPITests.audioFile("short.mp3", seconds: 2, title: "Short", frequency: 440))
        // The Info header's frame count (after its flags, whose lowest bit says it is there): 10 hours of 1,152-sample frames.
        let info = try #require((0..<bytes.count - 16).first { bytes[$0..<$0 + 4].elementsEqual("Info".utf8) })
        try #require(bytes[info + 7] & 1 == 1)
        let frames = UInt32(10 * 3600 * 44_100 / 1_152)
        bytes.replaceSubrange(info + 8..<info + 12, with: [UInt8(frames >> 24), UInt8(frames >> 16 & 0xFF), UInt8(frames >> 8 & 0xFF), UInt8(frames & 0xFF)])
        let probed = try await AudioFiles().probe({ let file = scratchFile("lying.mp3"); try Data(bytes).write(to: file); return file }())
        #expect(probed.duration > 3_600, "ffprobe believes the header: \(probed.duration) s")
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let owner = try await client.setUpOwner()
            let answer = try await client.send(.PUT, "/api/winddown/affirmation_self_love/audio", data: Data(bytes), contentType: "audio/mpeg", auth: .cookie(owner),
                                               headers: ["X-File-Name": "short.mp3"])
            #expect(answer.status == .accepted, "\(answer.text)")
            let entry: Entry = try await eventually("the upload levelled") {
                let reply = try await client.send(.GET, "/api/winddown/affirmation_self_love", auth: .cookie(owner))
                if reply.status == .serviceUnavailable { return nil }  // (a starved machine's designed 503: ask again)
                let entry = try reply.decode(Entry.self)
                return entry.audio.state == "preparing" ? nil : entry
            }
            #expect(entry.audio.state == "ready" && abs(entry.item.duration - 2) <= 1, "\(entry.audio) \(entry.item)")
        }
    }

    @Test("the owner writes a script for an item: it is prepared, then plays")
    func script() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: true)])) { client in
            let owner = try await client.setUpOwner()
            let bad = try await client.send(.PUT, "/api/winddown/meditation_body_scan/script", json: ["script": "   "], auth: .cookie(owner))
            #expect(bad.status == .unprocessableEntity)
            let accepted = try await client.send(.PUT, "/api/winddown/meditation_body_scan/script",
                                                 json: ["script": "Lie still. (2s) Feel the weight of your hands. (3s) Rest. (4s)"], auth: .cookie(owner))
            #expect(accepted.status == .accepted, "\(accepted.text)")
            #expect(try accepted.decode(Entry.self).audio.source == "script")
            let entry = try await eventually("the script's audio no longer being prepared") {
                let entry = try await client.send(.GET, "/api/winddown/meditation_body_scan", auth: .cookie(owner)).decode(Entry.self)
                return entry.audio.state == "preparing" ? nil : entry
            }
            #expect(entry.audio.state == "ready" && !entry.comingSoon, "\(entry.audio)")
            let audio = try await client.send(.GET, "/api/winddown/meditation_body_scan/audio", auth: .cookie(owner))
            #expect(audio.status == .ok && audio.headers.contentType?.description == "audio/mp4")
        }
    }

    @Test("an item is spoken on its first play: it plays from the first phrase while the rest is spoken, a seek past what is made waits for it, the timer's rendition of it ends faded, and the whole is kept for next time")
    func spokenOnFirstPlay() async throws {
        let script = try #require(SleepLibrary.script(named: "breathing_478"))
        let first = try ScriptParser().parse(script).phrases[0].text
        // The first phrase is spoken at once, the rest waits for the gate.
        let engine = GatedEngine(open: false, passing: [first])
        try await withTestApp(.sqlite, speech: SpeechEngines([engine])) { client in
            let owner = try await client.setUpOwner()
            let fresh = try await client.send(.GET, "/api/winddown/breathing_478", auth: .cookie(owner)).decode(Entry.self)
            #expect(fresh.audio.state == "speaking" && fresh.audio.made == 0 && !fresh.comingSoon, "\(fresh.audio)")
            let live = try #require(fresh.audio.url)
            #expect(live == "/api/winddown/breathing_478/live/audio")
            // Nothing is spoken before someone plays it.
            #expect(engine.calls == 0)

            // The first play starts the speaking: the header (the whole length) and the opening
            // come while the rest waits.
            let start = try await client.send(.GET, live, auth: .cookie(owner), headers: ["Range": "bytes=0-43"])
            #expect(start.status == .partialContent, "\(start.text.prefix(200))")
            #expect(start.headers.first(name: .contentRange) == "bytes 0-43/\(44 + 300 * 22050 * 4)", "float samples: 4 bytes each")
            #expect(start.headers.contentType?.description == "audio/wav" && start.bytes.count == 44)
            let speaking = try await eventually("the first phrase made") {
                let entry = try await client.send(.GET, "/api/winddown/breathing_478", auth: .cookie(owner)).decode(Entry.self)
                return (entry.audio.made ?? 0) > 0.5 ? entry : nil
            }
            #expect(speaking.audio.state == "speaking" && (speaking.audio.made ?? 0) < 60, "\(speaking.audio)")
            let bytes = 44 + Int((speaking.audio.made ?? 0) * 22050) * 4
            let opening = try await client.send(.GET, live, auth: .cookie(owner), headers: ["Range": "bytes=0-\(bytes - 1)"])
            #expect(opening.status == .partialContent && opening.bytes.count == bytes)
            let heard = Array(try WAVFile.decode(opening.bytes).samples.prefix((bytes - 44) / 4))
            #expect(heard.contains { abs($0) > 0.05 }, "the opening has the voice")

            // A seek (or Continue Listening) far past what is made (the rest waits for the gate):
            // the answer is those bytes of the whole once the voice gets there.
            let deepFrom = 44 + 200 * 22050 * 4 + 1, deepTo = deepFrom + 9_999   // (an odd start: mid-sample)
            let waiting = try await client.send(.GET, "/api/winddown/breathing_478", auth: .cookie(owner)).decode(Entry.self)
            #expect((waiting.audio.made ?? 0) < 200, "those bytes were not made yet: \(waiting.audio)")
            async let deep = client.send(.GET, live, auth: .cookie(owner), headers: ["Range": "bytes=\(deepFrom)-\(deepTo)"])
            // The rest is spoken; then the whole file is kept, and plays from /audio next time.
            engine.open()
            let seek = try await deep
            #expect(seek.status == .partialContent && seek.bytes.count == 10_000)
            let whole = try await client.send(.GET, live, auth: .cookie(owner))
            #expect(seek.bytes == whole.bytes[deepFrom...deepTo], "the bytes a seek waited for are the whole's")
            #expect(whole.status == .ok && whole.bytes.count == 44 + 300 * 22050 * 4)
            let samples = try WAVFile.decode(whole.bytes).samples
            #expect(Array(samples.prefix(heard.count)) == heard, "the opening heard is the start of the whole")
            let made = try await eventually("the whole item kept") {
                let entry = try await client.send(.GET, "/api/winddown/breathing_478", auth: .cookie(owner)).decode(Entry.self)
                return entry.audio.state == "ready" ? entry : nil
            }
            #expect(made.audio.url == "/api/winddown/breathing_478/audio" && made.item.duration == 300)

            // The timer's rendition of the live file: the same audio to its second, the last 30 s
            // falling to silence.
            let timed = try await client.send(.GET, live + "?until=100", auth: .cookie(owner))
            #expect(timed.status == .ok)
            let rendition = try WAVFile.decode(timed.bytes).samples
            #expect(rendition.count == 100 * 22050)
            let fadeStart = 70 * 22050
            func close(_ a: [Float], _ b: [Float]) -> Bool { zip(a, b).allSatisfy { abs($0 - $1) < 1e-4 } }
            #expect(close(Array(rendition[..<fadeStart]), Array(samples[..<fadeStart])))
            let tail = AudioBuffer(sampleRate: 22050, samples: Array(rendition[(rendition.count - 2205)...]))
            let before = AudioBuffer(sampleRate: 22050, samples: Array(samples[(rendition.count - 2205)..<rendition.count]))
            #expect(tail.peak <= before.peak * 0.11 + 1e-4, "the last tenth of a second is at a tenth or less")
            // A range past the end is refused with the size; an item with no fixed length is not spoken live.
            let past = try await client.send(.GET, live + "?until=100", auth: .cookie(owner), headers: ["Range": "bytes=9000000-"])
            #expect(past.status == .rangeNotSatisfiable && past.headers.first(name: "Content-Range") == "bytes */\(44 + 100 * 22050 * 4)")
            _ = try await client.send(.PUT, "/api/winddown/meditation_garden/script", json: ["script": "Walk slowly. (2s) Rest. (3s)"], auth: .cookie(owner))
            let notLive = try await client.send(.GET, "/api/winddown/meditation_garden/live/audio", auth: .cookie(owner))
            #expect(notLive.status == .notFound && notLive.text.contains("not_live"))
        }
    }

    @Test("a seek far into an item spoken for the first time is spoken first: its bytes come while the voice before it still waits, and the whole is still one item of its length, kept in order")
    func farSeek() async throws {
        // Each render's first phrase is spoken at once; every other phrase waits for the gate.
        let engine = GatedEngine(open: false, openings: true)
        try await withTestApp(.sqlite, speech: SpeechEngines([engine])) { client in
            let owner = try await client.setUpOwner()
            let live = "/api/winddown/breathing_478/live/audio"
            let start = try await client.send(.GET, live, auth: .cookie(owner), headers: ["Range": "bytes=0-43"])
            #expect(start.status == .partialContent)
            _ = try await eventually("the first phrase made") {
                let entry = try await client.send(.GET, "/api/winddown/breathing_478", auth: .cookie(owner)).decode(Entry.self)
                return (entry.audio.made ?? 0) > 0.5 ? entry : nil
            }
            let askedBefore = engine.calls
            // 200 s into the 300: answered while the phrases before it still wait at the gate.
            let deepFrom = 44 + 200 * 22050 * 4, deepTo = deepFrom + 4 * 22050 - 1
            let seek = try await client.send(.GET, live, auth: .cookie(owner), headers: ["Range": "bytes=\(deepFrom)-\(deepTo)"])
            #expect(seek.status == .partialContent && seek.bytes.count == 4 * 22050)
            let heard = try WAVFile.decode(Data(WAVFile.header(sampleRate: 22050, samples: 22050, sample: .float32)) + seek.bytes).samples
            #expect(heard.contains { abs($0) > 0.1 }, "the voice at the second asked for")
            let entry = try await client.send(.GET, "/api/winddown/breathing_478", auth: .cookie(owner)).decode(Entry.self)
            #expect(entry.audio.state == "speaking" && (entry.audio.made ?? 0) < 60, "the voice before it still waits: \(entry.audio)")
            #expect(engine.calls > askedBefore, "the part asked for was spoken by a render of its own")
            // The rest is spoken; the whole is one item, the seek's bytes in their place.
            engine.open()
            let whole = try await client.send(.GET, live, auth: .cookie(owner))
            #expect(whole.status == .ok && whole.bytes.count == 44 + 300 * 22050 * 4)
            #expect(Array(whole.bytes[deepFrom...deepTo]) == Array(seek.bytes))
            let samples = try WAVFile.decode(whole.bytes).samples
            // No gap of digital silence where the parts meet (the bed plays under everything).
            let seam = 200 * 22050
            #expect(samples[(seam - 2205)..<seam].contains { $0 != 0 } && samples[seam..<(seam + 2205)].contains { $0 != 0 })
            let made = try await eventually("the whole item kept") {
                let entry = try await client.send(.GET, "/api/winddown/breathing_478", auth: .cookie(owner)).decode(Entry.self)
                return entry.audio.state == "ready" ? entry : nil
            }
            #expect(made.item.duration == 300)
            let kept = try await client.send(.GET, "/api/winddown/breathing_478/audio", auth: .cookie(owner))
            #expect(kept.status == .ok && kept.bytes.count > 10_000)
        }
    }

    @Test("an owner's script (no set length) is being prepared until its render exists; its audio answers 409 with Retry-After meanwhile, and so does a catalog item's whole file while it is spoken")
    func preparing() async throws {
        try await withTestApp(.sqlite, speech: SpeechEngines([GatedEngine(open: false)])) { client in
            let owner = try await client.setUpOwner()
            let spoken = try await client.send(.GET, "/api/winddown/yoga_nidra_5min/audio", auth: .cookie(owner))
            #expect(spoken.status == .conflict && spoken.text.contains("audio_preparing"))
            _ = try await client.send(.PUT, "/api/winddown/yoga_nidra_5min/script", json: ["script": "Rest. (2s) Be still. (3s)"], auth: .cookie(owner))
            let entry = try await client.send(.GET, "/api/winddown/yoga_nidra_5min", auth: .cookie(owner)).decode(Entry.self)
            #expect(entry.audio.state == "preparing" && !entry.comingSoon && entry.audio.source == "script")
            let audio = try await client.send(.GET, "/api/winddown/yoga_nidra_5min/audio", auth: .cookie(owner))
            #expect(audio.status == .conflict && audio.headers.first(name: .retryAfter) == "5" && audio.text.contains("audio_preparing"))
        }
    }
}

func scratchFile(_ name: String) -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("winddown-\(UUID().uuidString)", isDirectory: true)
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent(name)
}
