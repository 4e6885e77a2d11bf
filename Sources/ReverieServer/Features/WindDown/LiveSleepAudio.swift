import AudioRender
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import Playback
import Vapor

/// A Wind Down item heard while it is first spoken. The render writes its mix to a WAV whose
/// header already holds the whole length (a fitted render's length is known before it starts),
/// and a player reads it like any file: with Range, seeking anywhere. Bytes not made yet are sent
/// as they come (the voice speaks many times faster than it plays), so the element plays on by
/// itself, with no script to hand it from part to part: a locked phone hears the whole item.
///
/// The sleep timer's rendition of it (`?until=`) is the same file ending at that second, fading to
/// silence on the way out by `SleepTimer.fade`, as `Renditions` makes them of a finished file.
///
/// Its samples are 32-bit floats (`sample`), not 16-bit: Chromium starts a WAV only once it holds
/// about 224 KiB of it, whatever its rate, which is 5.2 s of 22.05 kHz 16-bit mono and 2.6 s of
/// float. The render's first stretch (its first phrase and the pauses after it, 3.5–5 s) then
/// holds that much, and the item starts as soon as its first phrase is spoken, not after the
/// second. It costs twice the bytes on the first play only (88 kB a second); the kept file is an M4A.
enum LiveSleepAudio {
    /// How a live file written now holds its samples (one written before by 16-bit is still read).
    static let sample = WAVFile.Sample.float32

    /// Writes a render's mix as it is handed on, and counts it (how much is made, without asking
    /// the disk). A far seek may have the rest of a part spoken by a render of its own
    /// (`split(at:)`): the file is then written in parts, each from where it begins, and what is
    /// made is counted part by part.
    final class Writer: @unchecked Sendable {
        let url: URL
        let seconds: Double
        private let lock = NIOLock()
        private var handle: FileHandle?
        private var rate = 0, closed = false
        /// Where each part begins (in samples, in order; the first at 0) and how much of it is made.
        /// A part ends where the next begins.
        private var parts: [(start: Int, made: Int)] = [(0, 0)]

        /// (The render removed any file an earlier one left before it started.)
        init(url: URL, seconds: Double) {
            (self.url, self.seconds) = (url, seconds)
        }

        /// Seconds made from the start on, without a gap.
        var madeSeconds: Double { lock.withLock { rate > 0 ? Double(madeOn(from: 0)) / Double(rate) : 0 } }

        /// The samples' rate, once the first stretch is written.
        var sampleRate: Int? { lock.withLock { rate > 0 ? rate : nil } }

        /// The sample where what is made from `sample` on, without a gap, ends (`sample` itself
        /// when that is not made yet).
        func available(from sample: Int) -> Int { lock.withLock { madeOn(from: sample) } }

        private func madeOn(from sample: Int) -> Int {
            guard var index = parts.lastIndex(where: { $0.start <= sample }) else { return sample }
            var end = sample
            while index < parts.count {
                let part = parts[index]
                let partEnd = part.start + part.made
                guard partEnd >= end else { return end }
                end = partEnd
                // A part wholly made runs on into the next.
                let boundary = index + 1 < parts.count ? parts[index + 1].start : Int.max
                guard partEnd >= boundary else { return end }
                index += 1
            }
            return end
        }

        /// A new part begins at `sample` (the part that held it now ends there).
        func split(at sample: Int) {
            lock.withLock {
                guard !parts.contains(where: { $0.start == sample }) else { return }
                parts.append((sample, 0))
                parts.sort { $0.start < $1.start }
            }
        }

        /// Appends a stretch of the mix to the part that begins at `part` (samples); the first
        /// stretch written also writes the header for the whole length. Nothing is written past
        /// the part's end.
        func write(_ audio: AudioBuffer, part: Int = 0) throws {
            try lock.withLock {
                // (A part still finishing after the render ended, or failed, writes nothing.)
                guard !closed else { return }
                let total = AudioBuffer.sampleCount(seconds, audio.sampleRate)
                if handle == nil {
                    let header = WAVFile.header(sampleRate: audio.sampleRate, samples: total, sample: LiveSleepAudio.sample)
                    guard FileManager.default.createFile(atPath: url.path, contents: Data(header)) else {
                        throw WindDownError.liveAudioUnwritable
                    }
                    handle = try FileHandle(forWritingTo: url)
                }
                rate = audio.sampleRate
                guard let index = parts.firstIndex(where: { $0.start == part }) else { return }
                let end = index + 1 < parts.count ? parts[index + 1].start : total
                let from = parts[index].start + parts[index].made
                let count = max(0, min(audio.samples.count, end - from))
                guard count > 0 else { return }
                try handle?.seek(toOffset: UInt64(WAVFile.headerSize + from * LiveSleepAudio.sample.bytes))
                try handle?.write(contentsOf: LiveSleepAudio.sample.encode(Array(audio.samples.prefix(count))))
                parts[index].made += count
            }
        }

        func close() {
            lock.withLock {
                try? handle?.close()
                (handle, closed) = (nil, true)
            }
        }
    }

    /// What a live file's header says: its sample rate, its whole length, and how its samples are held.
    struct Header {
        let sampleRate: Int, samples: Int, sample: WAVFile.Sample
        /// The file's size once all of it is made.
        var size: Int { WAVFile.headerSize + samples * sample.bytes }
    }

    /// The header of a live file; nil before it is there.
    static func header(_ url: URL) -> Header? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        return header(handle)
    }

    static func header(_ handle: FileHandle) -> Header? {
        guard (try? handle.seek(toOffset: 0)) != nil,
              let data = try? handle.read(upToCount: WAVFile.headerSize), data.count == WAVFile.headerSize else { return nil }
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        let rate = u32(24), code = Int(bytes[20]) | Int(bytes[21]) << 8, bits = Int(bytes[34]) | Int(bytes[35]) << 8
        let sample: WAVFile.Sample
        switch (code, bits) {
        case (1, 16): sample = .pcm16
        case (3, 32): sample = .float32
        default: return nil
        }
        guard rate > 0 else { return nil }
        return Header(sampleRate: rate, samples: u32(40) / sample.bytes, sample: sample)
    }

    /// Bytes in the file now.
    static func size(_ url: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }

    /// Why a live file will not grow any more before it is whole.
    struct Stopped: Error {}

    /// A response gives up when the file it waits on has not grown for this long (a render stuck
    /// on a hung engine).
    static let stall: Duration = .seconds(120)

    /// The file a response reads: opened once, so a render that replaces it (a new one after a
    /// failure) is not read half and half; its size is the open file's.
    final class Reading: @unchecked Sendable {
        let handle: FileHandle
        init(_ handle: FileHandle) { self.handle = handle }
        var size: Int { Int((try? handle.seekToEnd()) ?? 0) }
        deinit { try? handle.close() }
    }

    /// Answers a player's request for the live file at `url` (its `Range`, and `until` for a
    /// timer's rendition). `growing()` says whether the render is still making it: bytes not
    /// there yet are waited for while it is, and the response is cut short if it stops first.
    /// Waits up to `firstSound` for the render's first stretch. `writer` gives the render's
    /// writer while it is under way, which says which samples are made (a file written in parts
    /// has gaps until it is whole); `reach` hears the second a request begins at when that is
    /// not made yet (a far seek, which may have that part spoken first).
    static func response(_ url: URL, until: Double?, for request: Request, firstSound: Duration = .seconds(30),
                         writer: @escaping @Sendable () async -> Writer? = { nil },
                         reach: @escaping @Sendable (Double) async -> Void = { _ in },
                         growing: @escaping @Sendable () async -> Bool) async throws -> Response {
        let deadline = ContinuousClock.now + firstSound
        var opened: (Reading, Header)?
        while opened == nil {
            if let handle = try? FileHandle(forReadingFrom: url) {
                let reading = Reading(handle)
                if let header = header(handle) { opened = (reading, header); break }
            }
            guard await growing(), ContinuousClock.now < deadline else {
                throw WindDownError.audioFailed
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let (reading, file) = opened!
        let (rate, allSamples, width) = (file.sampleRate, file.samples, file.sample.bytes)
        // A timer's rendition ends where `Renditions` would end one of a finished file (the whole
        // item, unfaded, for an end at or past its own).
        let end = until.flatMap { Renditions.end($0, duration: Double(allSamples) / Double(rate)) }
        let samples = end.map { min(allSamples, AudioBuffer.sampleCount($0, rate)) } ?? allSamples
        let fadeStart = end == nil ? samples : max(0, samples - AudioBuffer.sampleCount(SleepTimer.fade.seconds, rate))
        let size = WAVFile.headerSize + samples * width
        let range: ClosedRange<Int>
        var status = HTTPResponseStatus.ok
        switch request.headers.first(name: .range).map({ Request.byteRange($0, size: size) }) ?? .whole {
        case .whole: range = 0...(size - 1)
        case .unsatisfiable: throw Request.rangeNotSatisfiable(size: size)
        case let .part(part):
            (range, status) = (part, .partialContent)
        }
        let header = WAVFile.header(sampleRate: rate, samples: samples, sample: file.sample)
        // The end of what is made from a sample on.
        let writer = await writer()
        let made: @Sendable (Int) -> Int = { sample in
            writer?.available(from: sample) ?? max(0, reading.size - WAVFile.headerSize) / file.sample.bytes
        }
        let first = max(0, range.lowerBound - WAVFile.headerSize) / width
        if range.lowerBound >= WAVFile.headerSize, first < samples, made(first) <= first, await growing() {
            await reach(Double(first) / Double(rate))
        }
        let response = Response(status: status, body: .init(managedAsyncStream: { bodyWriter in
            try await send(reading, range: range, header: header, sample: file.sample, samples: samples, fadeStart: fadeStart,
                           made: made, growing: growing, to: bodyWriter)
        }, count: range.count))
        response.headers.contentType = HTTPMediaType(type: "audio", subType: "wav")
        response.headers.replaceOrAdd(name: .acceptRanges, value: "bytes")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        if status == .partialContent {
            response.headers.replaceOrAdd(name: .contentRange, value: "bytes \(range.lowerBound)-\(range.upperBound)/\(size)")
        }
        return response
    }

    /// Most bytes read and sent at a time.
    static let piece = 1 << 18

    private static func send(_ reading: Reading, range: ClosedRange<Int>, header: [UInt8], sample format: WAVFile.Sample, samples: Int,
                             fadeStart: Int, made: @escaping @Sendable (Int) -> Int, growing: @escaping @Sendable () async -> Bool,
                             to writer: any AsyncBodyStreamWriter) async throws {
        var position = range.lowerBound
        let end = range.upperBound + 1
        let headerSize = WAVFile.headerSize
        if position < headerSize {
            let to = min(headerSize, end)
            try await writer.writeBuffer(ByteBuffer(bytes: header[position..<to]))
            position = to
        }
        guard position < end else { return }
        let handle = reading.handle
        let width = format.bytes
        // Whole samples are read (a fade scales samples), and the bytes asked for sent of them.
        let lastSample = min(samples, (end - headerSize + width - 1) / width)
        var sample = (position - headerSize) / width
        var grew = ContinuousClock.now
        while position < end {
            let available = min(lastSample, made(sample))
            guard available > sample else {
                if await growing(), ContinuousClock.now - grew < stall {
                    try await Task.sleep(for: .milliseconds(50))
                    continue
                }
                // One last look: the render may have written its end and stopped meanwhile.
                guard min(lastSample, made(sample)) > sample else { throw Stopped() }
                continue
            }
            grew = ContinuousClock.now
            let count = min(available - sample, piece / width)
            try handle.seek(toOffset: UInt64(headerSize + sample * width))
            var bytes = [UInt8](try handle.read(upToCount: count * width) ?? Data())
            guard bytes.count == count * width else { throw Stopped() }
            if sample + count > fadeStart { fade(&bytes, sample: format, firstSample: sample, fadeStart: fadeStart, end: samples) }
            let from = position - (headerSize + sample * width)
            let to = min(bytes.count, end - (headerSize + sample * width))
            try await writer.writeBuffer(ByteBuffer(bytes: bytes[from..<to]))
            position = headerSize + sample * width + to
            sample += count
        }
    }

    /// Scales samples held as `sample` says (the first is sample `firstSample`) by the timer's fade
    /// (`SleepTimer.fade`): full until `fadeStart`, then its gain down to silence at `end`. The
    /// fade's length is `fadeStart` to `end` (less than the fade's seconds in a file that short: the
    /// whole fade then happens in it, as ffmpeg's does in `Renditions`).
    static func fade(_ bytes: inout [UInt8], sample format: WAVFile.Sample, firstSample: Int, fadeStart: Int, end: Int) {
        let fade = SleepTimer.fade
        // The fade's seconds still to go, per sample before the end.
        let secondsPerSample = fade.seconds / Double(max(1, end - fadeStart))
        let width = format.bytes
        for index in 0..<(bytes.count / width) {
            let sample = firstSample + index
            guard sample >= fadeStart else { continue }
            let gain = fade.gain(left: Double(end - sample) * secondsPerSample)
            let at = width * index
            switch format {
            case .pcm16:
                let value = Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8)
                let scaled = UInt16(bitPattern: Int16((Double(value) * gain).rounded()))
                bytes[at] = UInt8(scaled & 0xFF)
                bytes[at + 1] = UInt8(scaled >> 8)
            case .float32:
                var bits: UInt32 = 0
                for byte in 0..<4 { bits |= UInt32(bytes[at + byte]) << (8 * UInt32(byte)) }
                let scaled = (Float(bitPattern: bits) * Float(gain)).bitPattern
                for byte in 0..<4 { bytes[at + byte] = UInt8((scaled >> (8 * UInt32(byte))) & 0xFF) }
            }
        }
    }
}
