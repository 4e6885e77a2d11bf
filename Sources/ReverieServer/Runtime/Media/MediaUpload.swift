import Crypto
import Foundation
import Vapor

/// A request body written to disk as it arrives (never held whole in memory), hashed on the way.
struct ReceivedUpload: Sendable {
    /// A scratch file under `<data>/media/.incoming`; move it where it belongs or remove it.
    let file: URL
    let byteCount: Int
    /// SHA-256 of the bytes, lowercase hex.
    let sha256: String
    /// `X-File-Name`, at most 200 characters, without any directory part.
    let originalName: String?
}

extension MediaFiles {
    /// Streams the request's body (routes registered with `takes: .streamed`), through `BodyChunks`, to a scratch file.
    /// - Throws: 413 past `limit` bytes (told by Content-Length before anything is read, when sent),
    ///   400 for an empty body. The scratch file is gone when this throws.
    func receive(_ request: Request, limit: Int) async throws -> ReceivedUpload {
        let headers = request.headers
        if let length = headers.first(name: .contentLength).flatMap(Int.init), length > limit {
            throw MediaUploadError.tooLarge(limit: limit)
        }
        let directory = incomingDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let scratch = directory.appendingPathComponent(UUID().uuidString)
        guard FileManager.default.createFile(atPath: scratch.path, contents: nil) else {
            throw APIError(.internalServerError, code: "storage_unwritable", "The server cannot write to its media folder \(directory.path); check its permissions and free space.")
        }
        var hasher = SHA256()
        var received = 0
        do {
            let handle = try FileHandle(forWritingTo: scratch)
            defer { try? handle.close() }
            try await BodyChunks(request).forEach { buffer in
                received += buffer.readableBytes
                guard received <= limit else { throw MediaUploadError.tooLarge(limit: limit) }
                buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                try handle.write(contentsOf: buffer.readableBytesView)
            }
        } catch {
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        guard received > 0 else {
            try? FileManager.default.removeItem(at: scratch)
            throw APIError(.badRequest, code: "empty_upload", "The upload is empty: send the audio file as the request body.")
        }
        let name = headers.first(name: "X-File-Name").map { String(($0.removingPercentEncoding ?? $0).split(separator: "/").last ?? "").prefix(200) }
        return ReceivedUpload(file: scratch, byteCount: received, sha256: hasher.finalize().hex,
                              originalName: name.map(String.init).flatMap { $0.isEmpty ? nil : $0 })
    }
}

extension SHA256Digest {
    /// Lowercase hex, the form file names and rows keep.
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

enum MediaUploadError {
    static func tooLarge(limit: Int) -> APIError {
        APIError(.payloadTooLarge, code: "upload_too_large",
                 "The file is larger than this server takes (\(ByteCountFormatter.string(fromByteCount: Int64(limit), countStyle: .binary))); make it smaller or raise REVERIE_MAX_UPLOAD_BYTES.")
    }
}
