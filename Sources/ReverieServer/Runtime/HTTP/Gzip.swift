import CReverieZlib
import Foundation

/// gzip (RFC 1952) in one call, for bodies that are compressed once and served many times.
enum Gzip {
    /// The gzip member for `data`, or nil when zlib fails (the caller serves the bytes as they are).
    /// - Parameter level: 1 (fastest) to 9 (smallest).
    static func compress(_ data: Data, level: Int32 = 9) -> [UInt8]? {
        var stream = z_stream()
        guard reverie_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 32)
        let status: Int32 = data.withUnsafeBytes { source in
            output.withUnsafeMutableBufferPointer { target in
                // zlib reads the input without writing it; its API is just not const-correct.
                stream.next_in = UnsafeMutablePointer(mutating: source.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }
}
