import AudioRender
import Foundation

/// `make bench` (night): what one 8-hour Bedside night stream costs (issue 46), rendered faster than
/// real time: NightMix's stretches for 8 hours of wall clock (the rain room at half volume, the
/// alarm 60 s before the end) piped into the same ffmpeg the server runs, at the page's 128 kb/s
/// and at 16 kb/s. Prints the server's CPU as a share of one core over the night (goal ≤ 1 %), the
/// phone's megabytes (goal ≤ 60), and the mixing's share beside ffmpeg's own (the peer: encoding
/// alone). Asserts nothing.
enum NightBench {
    struct Figures {
        var kbps: Int
        var mixSeconds: Double      // our process: mixing the night
        var encodeSeconds: Double   // ffmpeg: encoding it
        var bytes: Int
    }

    static let nightSeconds = 8.0 * 3600

    static func run(kbps: Int, hours: Double = 8) async throws -> Figures {
        let rate = 16_000
        let sounds = NightMix.self
        sounds.prepare(sampleRate: rate, room: .rain)
        await sounds.finishPreparing(sampleRate: rate)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("night-\(kbps)-\(UUID().uuidString).mp3")
        defer { try? FileManager.default.removeItem(at: output) }
        FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandRunner.locate("ffmpeg") ?? "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-loglevel", "error"] + NightMix.mp3Arguments(sampleRate: rate, kbps: kbps)
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()

        let seconds = hours * 3600
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let plan = NightMix.Plan(room: .rain, roomVolume: 0.5, alarmAt: start.addingTimeInterval(seconds - 60))
        var mix = NightMix(sampleRate: rate)
        let count = rate / 5
        var mixing = 0.0
        for stretch in 0..<Int(seconds / 0.2) {
            let began = usage(RUSAGE_SELF)
            let samples = mix.render(plan, from: start.addingTimeInterval(Double(stretch) * 0.2), count: count)
            mixing += usage(RUSAGE_SELF) - began
            try samples.withUnsafeBufferPointer { try input.fileHandleForWriting.write(contentsOf: Data(buffer: $0)) }
        }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let encode = usage(RUSAGE_CHILDREN)
        let bytes = (try? FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int) ?? 0
        return Figures(kbps: kbps, mixSeconds: mixing, encodeSeconds: encode, bytes: bytes)
    }

    /// CPU seconds (user and system) of `who` so far.
    static func usage(_ who: __rusage_who) -> Double {
        let who = __rusage_who_t(who.rawValue)
        var usage = rusage()
        getrusage(who, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func report() async throws {
        print("\nBedside night stream (issue 46): one 8-hour night, rendered faster than real time")
        var childrenBefore = 0.0
        for kbps in [128, 16] {
            let started = Date()
            var figures = try await run(kbps: kbps)
            figures.encodeSeconds -= childrenBefore
            childrenBefore += figures.encodeSeconds
            let total = figures.mixSeconds + figures.encodeSeconds
            let share = total / nightSeconds * 100
            let megabytes = Double(figures.bytes) / 1e6
            print(String(format: "  %3d kb/s: server %.1f CPU s a night = %.3f %% of a core (goal ≤ 1 %%): mixing %.1f s, ffmpeg %.1f s (mixing is %.0f %% of the encoder's own); phone %.1f MB a night (goal ≤ 60); rendered in %.0f s",
                         kbps, total, share, figures.mixSeconds, figures.encodeSeconds,
                         figures.encodeSeconds > 0 ? figures.mixSeconds / figures.encodeSeconds * 100 : 0, megabytes, Date().timeIntervalSince(started)))
        }
    }
}
