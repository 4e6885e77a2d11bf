import AudioRender
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import Playback
@testable import ReverieServer
import Testing
import Vapor

@Suite("HLS-only radio: a live list followed from near its end, its segments remuxed in order")
struct HLSRelayTests {
    /// One-second segments of AAC in MPEG-TS (`s000.ts`…) made by ffmpeg in a new folder, and
    /// their listed lengths.
    static func segments(frequency: Int, seconds: Int) throws -> (folder: URL, lengths: [String]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        ffmpeg.arguments = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=\(frequency):d=\(seconds)", "-ar", "44100", "-ac", "1", "-c:a", "aac",
                            "-b:a", "64k", "-f", "hls", "-hls_time", "1", "-hls_playlist_type", "vod",
                            "-hls_segment_filename", folder.appendingPathComponent("s%03d.ts").path, folder.appendingPathComponent("all.m3u8").path]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        let listing = try String(contentsOf: folder.appendingPathComponent("all.m3u8"), encoding: .utf8)
        return (folder, listing.split(separator: "\n").filter { $0.hasPrefix("#EXTINF:") }.map { String($0.dropFirst(8).dropLast()) })
    }

    /// Runs the remux relay on `site`'s `live.m3u8` to its end; answers what it made.
    /// With `shaping`, the relay a sleep timer or a level asks for (an MP3).
    static func relayed(_ site: LocalSite, stillLimit: Double? = nil, shaping: [String]? = nil) async throws -> Data {
        var policy = GuardedHTTPClient.Policy().patient(10)
        policy.allowPrivate = true
        let client = GuardedHTTPClient(policy: policy, group: MultiThreadedEventLoopGroup.singleton)
        let first = try await HLSRelay(client: client).resolve(site.url.appendingPathComponent("live.m3u8"))
        let process = try FFmpegPipe.relay(ffmpeg: "ffmpeg", format: "adts", shaping: shaping)
        let feeding = Task {
            await HLSRelay.feed(process, from: first, client: client, maxBytes: 1 << 24, logger: Logger(label: "hls-test"), stillLimit: stillLimit)
        }
        var bytes = Data()
        for await chunk in process.output {
            bytes.append(chunk)
            process.taken()
        }
        await feeding.value
        return bytes
    }

    @Test("a live list: the relay starts three segments from its end, reads it again every target duration, takes each new segment once, and stops when the list ends")
    func live() async throws {
        let (folder, lengths) = try Self.segments(frequency: 440, seconds: 10)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(lengths.count >= 8)

        // The k-th reading of the list shows segments k…k+4, and the last one (7) ends it.
        let asked = NIOLockedValueBox<(readings: Int, segments: [String])>((0, []))
        let site = try await LocalSite.start { app in
            app.get("live.m3u8") { _ -> Response in
                let k = asked.withLockedValue { state in defer { state.readings += 1 }; return state.readings }
                let last = min(k + 4, 7)
                var text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:\(k)\n"
                for n in k...last { text += "#EXTINF:\(lengths[n]),\ns\(String(format: "%03d", n)).ts\n" }
                if last == 7 { text += "#EXT-X-ENDLIST\n" }
                return Response(status: .ok, body: .init(string: text))
            }
            app.get(":name") { req async throws -> Response in
                let name = req.parameters.get("name") ?? ""
                asked.withLockedValue { $0.segments.append(name) }
                return try await req.fileio.asyncStreamFile(at: folder.appendingPathComponent(name).path)
            }
        }
        do {
            let bytes = try await Self.relayed(site)
            let fetched = asked.withLockedValue { $0.segments }
            #expect(fetched == ["s002.ts", "s003.ts", "s004.ts", "s005.ts", "s006.ts", "s007.ts"], "each new segment once, from near the live edge")
            let expected = lengths[2...7].compactMap(Double.init).reduce(0, +)
            let seconds = try await PodcastAPITests.probedSeconds(bytes)
            #expect(abs(seconds - expected) < 0.3, "the remux holds \(seconds) s of the \(expected) s fed")
        } catch {
            await site.stop()
            throw error
        }
        await site.stop()
    }

    @Test("shaped for an iPhone: the relay of a finished list at a quarter's level (12 dB down) ends after the timer's seconds, falling to silence")
    func shaped() async throws {
        let (folder, _) = try Self.segments(frequency: 440, seconds: 10)
        defer { try? FileManager.default.removeItem(at: folder) }
        let site = try await LocalSite.start { app in
            app.get(":name") { req async throws -> Response in
                let name = req.parameters.get("name") == "live.m3u8" ? "all.m3u8" : req.parameters.get("name") ?? ""
                return try await req.fileio.asyncStreamFile(at: folder.appendingPathComponent(name).path)
            }
        }
        do {
            func heard(_ bytes: Data) async throws -> AudioBuffer {
                let file = scratchFile("relay.bin")
                try bytes.write(to: file)
                let wav = try await CommandRunner.live.run("ffmpeg", ["-v", "error", "-i", file.path, "-ac", "1", "-f", "wav", "-"], nil)
                return try WAVFile.decode(wav.output)
            }
            func level(_ buffer: AudioBuffer, _ from: Double, _ to: Double) -> Double {
                decibels(buffer.rms(AudioBuffer.sampleCount(from, buffer.sampleRate)..<AudioBuffer.sampleCount(to, buffer.sampleRate)))
            }
            let plain = try await heard(try await Self.relayed(site))
            let fade = SleepTimer.fade
            let shaped = try await heard(try await Self.relayed(site, shaping: AudioFiles.shapedStreamArguments(
                gain: -12, boost: false, until: 4, fade: fade.seconds, curve: fade.ffmpegCurve)))
            #expect(abs(plain.duration - 10) < 0.3 && abs(shaped.duration - 4) < 0.2, "\(plain.duration) s plain, \(shaped.duration) s shaped")
            // (The 30 s fade runs over all of a stream this short: 12 dB down and more from its start.)
            let first = level(shaped, 0.1, 0.5) - level(plain, 0.1, 0.5)
            #expect(first < -12 && first > -20, "\(first) dB in its first half second")
            #expect(level(shaped, 3.8, 3.95) < level(plain, 3.8, 3.95) - 30, "not silent at its end")
        } catch {
            await site.stop()
            throw error
        }
        await site.stop()
    }

    @Test("a live list whose numbering starts again is taken up near its new end, and one that stops moving ends the relay")
    func restartAndStall() async throws {
        let (folder, _) = try Self.segments(frequency: 330, seconds: 10)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Readings 0 and 1: segments 0…4 (s000–s004). From reading 2 on: the numbering starts
        // again at 0 for s005–s007, and the list never moves again.
        let asked = NIOLockedValueBox<(readings: Int, segments: [String])>((0, []))
        let site = try await LocalSite.start { app in
            app.get("live.m3u8") { _ -> Response in
                let k = asked.withLockedValue { state in defer { state.readings += 1 }; return state.readings }
                let files = k < 2 ? Array(0...4) : Array(5...7)
                var text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n"
                for n in files { text += "#EXTINF:1.0,\ns\(String(format: "%03d", n)).ts\n" }
                return Response(status: .ok, body: .init(string: text))
            }
            app.get(":name") { req async throws -> Response in
                let name = req.parameters.get("name") ?? ""
                asked.withLockedValue { $0.segments.append(name) }
                return try await req.fileio.asyncStreamFile(at: folder.appendingPathComponent(name).path)
            }
        }
        do {
            let bytes = try await Self.relayed(site, stillLimit: 2)
            let fetched = asked.withLockedValue { $0.segments }
            #expect(fetched == ["s002.ts", "s003.ts", "s004.ts", "s005.ts", "s006.ts", "s007.ts"],
                    "near the end, then near the new end once the numbering started again, each once")
            #expect(!bytes.isEmpty)
        } catch {
            await site.stop()
            throw error
        }
        await site.stop()
    }
}
