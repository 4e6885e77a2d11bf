import Foundation

/// RIFF/WAVE reading and writing.
///
/// Writes mono 16-bit PCM, or 32-bit float (`Sample.float32`). Reads PCM 8/16/24/32-bit and IEEE float 32/64-bit, mono or more channels
/// (mixed down to mono). Spec: Microsoft's "Multimedia Programming Interface and Data
/// Specifications 1.0" (RIFF), WAVE_FORMAT_PCM = 1, WAVE_FORMAT_IEEE_FLOAT = 3, EXTENSIBLE = 0xFFFE.
public enum WAVFile {
    /// 16-bit PCM WAV bytes for a buffer; samples outside −1…1 are clipped.
    public static func encode(_ buffer: AudioBuffer) -> Data {
        var data = Data(capacity: headerSize + buffer.samples.count * 2)
        data.append(contentsOf: header(sampleRate: buffer.sampleRate, samples: buffer.samples.count))
        data.append(contentsOf: pcm16(buffer.samples))
        return data
    }

    /// The size of `header`: a WAV's samples begin this many bytes in.
    public static let headerSize = 44

    /// How a written WAV holds its samples.
    public enum Sample: Sendable {
        /// 16-bit PCM (WAVE_FORMAT_PCM): 2 bytes a sample.
        case pcm16
        /// 32-bit IEEE float (WAVE_FORMAT_IEEE_FLOAT): 4 bytes a sample, twice the bytes for a
        /// second of sound (a player that waits for so many bytes before it starts starts sooner).
        case float32

        public var bytes: Int { self == .pcm16 ? 2 : 4 }
        var code: UInt16 { self == .pcm16 ? 1 : 3 }

        /// The samples' bytes, little-endian; PCM clips outside −1…1 (float keeps them as they are).
        public func encode(_ samples: [Float]) -> [UInt8] {
            switch self {
            case .pcm16: return WAVFile.pcm16(samples)
            case .float32:
                var bytes = [UInt8](repeating: 0, count: samples.count * 4)
                for (index, sample) in samples.enumerated() {
                    withUnsafeBytes(of: sample.bitPattern.littleEndian) { bytes.replaceSubrange((4 * index)..<(4 * index + 4), with: $0) }
                }
                return bytes
            }
        }
    }

    /// The header of a mono WAV of `samples` samples (16-bit PCM unless `sample` says otherwise),
    /// which may be written before them (a file that grows as the samples are made).
    public static func header(sampleRate: Int, samples: Int, sample: Sample = .pcm16) -> [UInt8] {
        let dataSize = samples * sample.bytes
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize)
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        func u16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        bytes.append(contentsOf: Array("RIFF".utf8)); u32(UInt32(clamping: 36 + dataSize))
        bytes.append(contentsOf: Array("WAVE".utf8))
        bytes.append(contentsOf: Array("fmt ".utf8)); u32(16)
        u16(sample.code); u16(1); u32(UInt32(sampleRate)); u32(UInt32(sampleRate * sample.bytes)); u16(UInt16(sample.bytes)); u16(UInt16(8 * sample.bytes))
        bytes.append(contentsOf: Array("data".utf8)); u32(UInt32(clamping: dataSize))
        return bytes
    }

    /// Samples as 16-bit little-endian PCM; outside −1…1 is clipped.
    public static func pcm16(_ samples: [Float]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: samples.count * 2)
        for (index, sample) in samples.enumerated() {
            let value = UInt16(bitPattern: Int16((max(-1, min(1, sample)) * 32767).rounded()))
            bytes[2 * index] = UInt8(value & 0xFF)
            bytes[2 * index + 1] = UInt8(value >> 8)
        }
        return bytes
    }

    /// Reads WAV bytes into a mono buffer.
    /// - Throws: `AudioRenderError.malformedWAV` saying what is wrong.
    public static func decode(_ data: Data) throws -> AudioBuffer {
        let bytes = [UInt8](data)
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }

        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else {
            throw AudioRenderError.malformedWAV("not a RIFF/WAVE file")
        }
        var format: (code: Int, channels: Int, rate: Int, bits: Int)?
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = tag(offset)
            let size = u32(offset + 4)
            let body = offset + 8
            guard size <= bytes.count - body || id == "data" else { throw AudioRenderError.malformedWAV("chunk '\(id)' runs past the end") }
            if id == "fmt " {
                guard size >= 16 else { throw AudioRenderError.malformedWAV("fmt chunk too short") }
                var code = u16(body)
                if code == 0xFFFE, size >= 26 { code = u16(body + 24) }
                format = (code, u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                guard let format else { throw AudioRenderError.malformedWAV("data before fmt") }
                // Streams written without knowing their length put 0 or 0xFFFFFFFF here: read to the end.
                let available = bytes.count - body
                let length = size == 0 || size > available ? available : size
                return try samples(bytes[body..<body + length], format: format)
            }
            offset = body + size + (size & 1)
        }
        throw AudioRenderError.malformedWAV("no data chunk")
    }

    private static func samples(_ bytes: ArraySlice<UInt8>, format: (code: Int, channels: Int, rate: Int, bits: Int)) throws -> AudioBuffer {
        guard format.channels >= 1, format.channels <= 32, format.rate > 0, format.rate <= 768_000 else {
            throw AudioRenderError.malformedWAV("\(format.channels) channels at \(format.rate) Hz is not playable")
        }
        let width = format.bits / 8
        let decode: (Int) -> Float
        let base = bytes.startIndex
        func byte(_ at: Int) -> UInt32 { UInt32(bytes[base + at]) }
        switch (format.code, format.bits) {
        case (1, 8): decode = { (Float(byte($0)) - 128) / 128 }
        case (1, 16): decode = { Float(Int16(bitPattern: UInt16(byte($0) | byte($0 + 1) << 8))) / 32768 }
        case (1, 24): decode = { Float(Int32(bitPattern: (byte($0) << 8 | byte($0 + 1) << 16 | byte($0 + 2) << 24)) >> 8) / 8_388_608 }
        case (1, 32): decode = { Float(Int32(bitPattern: byte($0) | byte($0 + 1) << 8 | byte($0 + 2) << 16 | byte($0 + 3) << 24)) / 2_147_483_648 }
        case (3, 32): decode = { Float(bitPattern: byte($0) | byte($0 + 1) << 8 | byte($0 + 2) << 16 | byte($0 + 3) << 24) }
        case (3, 64):
            decode = { at in
                var bits: UInt64 = 0
                for index in 0..<8 { bits |= UInt64(byte(at + index)) << (8 * UInt64(index)) }
                return Float(Double(bitPattern: bits))
            }
        default:
            throw AudioRenderError.malformedWAV("format \(format.code) with \(format.bits)-bit samples is not supported")
        }
        let frameSize = width * format.channels
        let frames = bytes.count / frameSize
        var output = [Float](repeating: 0, count: frames)
        for frame in 0..<frames {
            var sum: Float = 0
            for channel in 0..<format.channels { sum += decode(frame * frameSize + channel * width) }
            output[frame] = sum / Float(format.channels)
        }
        return AudioBuffer(sampleRate: format.rate, samples: output)
    }
}
