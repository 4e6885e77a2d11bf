import AudioRender
import CESpeakNG
import Foundation

/// eSpeak NG through its C library: the fallback when Piper is not installed. Robotic but clear,
/// very fast, with word timings from eSpeak's own word events.
///
/// The library keeps global state, so every engine's calls go through `ESpeakLibrary`, one at a
/// time; any number of engines may be made (each lists the voices once for itself). The text is
/// handed to the library as data, never through a shell.
public actor ESpeakEngine: SpeechEngine {
    public nonisolated let name = "espeak-ng"
    public nonisolated var version: String { "espeak-ng-\(Self.libraryVersion)/1" }
    public nonisolated let defaultVoice = "en-us"

    private let library = ESpeakLibrary.shared
    /// Voice id (its language, `en-gb`) → eSpeak's voice file (`gmw/en`), which is what it loads by.
    private var files: [String: String] = [:]
    /// The English voices, listed once: listing reads every voice file (some 650 system calls).
    private var listed: [Voice]?

    public init() {}

    /// Whether the library and its voice data load.
    public func isAvailable() -> Bool { (try? library.run { _ in () }) != nil }

    /// The library's version string, for cache keys.
    public nonisolated static var libraryVersion: String {
        var path: UnsafePointer<CChar>?
        guard let version = espeak_Info(&path) else { return "unknown" }
        return String(cString: version)
    }

    public func voices() async throws -> [Voice] {
        if let listed { return listed }
        let voices = try library.run { _ in listVoices() }
        listed = voices
        return voices
    }

    private func listVoices() -> [Voice] {
        guard var list = espeak_ListVoices(nil) else { return [] }
        var voices: [Voice] = []
        while let pointer = list.pointee {
            let voice = pointer.pointee
            // `languages` is a list of (priority byte, zero-terminated name); the first is enough.
            let language = voice.languages.map { String(cString: $0 + 1) } ?? ""
            if language.hasPrefix("en"), !voices.contains(where: { $0.id == language }),
               let name = voice.name, let file = voice.identifier {
                voices.append(Voice(id: language, name: "eSpeak " + String(cString: name), language: language, engine: self.name))
                files[language] = String(cString: file)
            }
            list += 1
        }
        return voices.sorted { $0.id < $1.id }
    }

    public func synthesize(_ text: String, voice: String?, rate: Double) async throws -> SynthesizedSpeech {
        guard (0.8...1.2).contains(rate) else { throw SpeechError.invalidRate(rate) }
        let wanted = voice ?? defaultVoice
        if files.isEmpty { _ = try await voices() }
        guard let file = files[wanted] else { throw SpeechError.synthesisFailed("eSpeak NG has no voice “\(wanted)”") }
        // A phrase whose render was let go of while it waited its turn here is not spoken.
        try Task.checkCancellation()
        let collector = Collector()
        let sampleRate: Int = try library.run { sampleRate in
            try library.use(voice: file)
            // eSpeak's rate is words per minute (175 is its normal); it changes timing, not pitch.
            espeak_SetParameter(espeakRATE, Int32((175 * rate).rounded()), 0)
            let context = Unmanaged.passRetained(collector)
            defer { context.release() }
            let bytes = Array(text.utf8CString)
            let status = bytes.withUnsafeBufferPointer { buffer in
                espeak_Synth(buffer.baseAddress, buffer.count, 0, POS_CHARACTER, 0,
                             UInt32(espeakCHARS_UTF8), nil, context.toOpaque())
            }
            guard status == EE_OK else { throw SpeechError.synthesisFailed("eSpeak NG refused the text (status \(status.rawValue))") }
            return sampleRate
        }

        let audio = AudioBuffer(sampleRate: sampleRate, samples: collector.samples.map { Float($0) / 32768 })
        let seconds = audio.duration
        let starts = collector.wordStarts.map { min($0, seconds) }
        let spans = starts.enumerated().map { index, start in
            (start: start, end: index + 1 < starts.count ? starts[index + 1] : min(collector.end ?? seconds, seconds))
        }
        return SynthesizedSpeech(audio: audio, words: WordAligner.align(text, spans: spans))
    }

}

/// eSpeak NG's process-wide state behind one lock: loaded once, one call at a time, and the
/// voice last set (speaking and the phonemizer share it).
///
/// This stays a single `shared` instance on purpose: the C library keeps its voice, its
/// parameters and its synthesis callback in globals of the process, so two instances would only
/// be two locks around the same state and could interleave calls. Engines and the phonemizer are
/// values made where they are needed; they all reach the library through this one gate.
final class ESpeakLibrary: @unchecked Sendable {
    /// The one gate to the library in this process.
    static let shared = ESpeakLibrary()
    private let lock = NSLock()
    private var sampleRate: Int?
    private var voice: String?

    /// Runs `body` holding the lock, with the library loaded (its sample rate passed in).
    func run<T>(_ body: (Int) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(try start())
    }

    /// Sets the voice by eSpeak's name or file (`en-us`, `gmw/en`); call inside `run`.
    func use(voice name: String) throws {
        guard name != voice else { return }
        guard espeak_SetVoiceByName(name) == EE_OK else { throw SpeechError.synthesisFailed("eSpeak NG has no voice “\(name)”") }
        voice = name
    }

    private func start() throws -> Int {
        if let sampleRate { return sampleRate }
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, 0)
        guard rate > 0 else { throw SpeechError.engineUnavailable("eSpeak NG could not load its voice data (is espeak-ng-data installed?)") }
        espeak_SetSynthCallback { samples, count, events in
            guard let events, let context = events.pointee.user_data else { return 0 }
            Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue().receive(samples, Int(count), events)
            return 0
        }
        sampleRate = Int(rate)
        return Int(rate)
    }
}

/// Gathers what eSpeak's callback hands over during one `espeak_Synth` call (only ever touched
/// inside `ESpeakLibrary.run`, hence unchecked).
final class Collector: @unchecked Sendable {
    var samples: [Int16] = []
    /// Seconds at which each word starts.
    var wordStarts: [Double] = []
    /// Where the last sentence ends, when eSpeak says.
    var end: Double?

    func receive(_ pointer: UnsafeMutablePointer<Int16>?, _ count: Int, _ events: UnsafeMutablePointer<espeak_EVENT>) {
        if let pointer, count > 0 { samples.append(contentsOf: UnsafeBufferPointer(start: pointer, count: count)) }
        var event = events
        while event.pointee.type != espeakEVENT_LIST_TERMINATED {
            let seconds = Double(event.pointee.audio_position) / 1000
            switch event.pointee.type {
            case espeakEVENT_WORD: wordStarts.append(seconds)
            case espeakEVENT_END, espeakEVENT_MSG_TERMINATED: end = max(end ?? 0, seconds)
            default: break
            }
            event += 1
        }
    }
}
