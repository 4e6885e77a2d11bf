import Foundation
import Vapor

extension GuardedHTTPClient {
    /// Audio from an outside address streamed through the client to the person, the request's
    /// Range passed on (so it seeks), each chunk fetched only when the last was sent: a LibriVox
    /// section or a podcast episode played before (or instead of) being downloaded; at most
    /// `maxBytes`.
    func relay(_ url: URL, for request: Request, maxBytes: Int) async throws -> Response {
        let upstream = try await stream(url, range: request.headers.first(name: .range), maxBytes: maxBytes)
        var headers = HTTPHeaders()
        let type = upstream.headers.first(name: .contentType) ?? ""
        headers.replaceOrAdd(name: .contentType, value: type.hasPrefix("audio/") ? type : "audio/mpeg")
        for name in [HTTPHeaders.Name.contentRange, .acceptRanges] {
            if let value = upstream.headers.first(name: name) { headers.replaceOrAdd(name: name, value: value) }
        }
        headers.replaceOrAdd(name: .cacheControl, value: "private, max-age=3600")
        let length = upstream.headers.first(name: .contentLength).flatMap(Int.init) ?? -1
        let body = upstream.body
        return Response(status: HTTPResponseStatus(statusCode: upstream.status), headers: headers, body: .init(asyncStream: { writer in
            do {
                while let chunk = try await body.next() { try await writer.write(.buffer(chunk)) }
                try await writer.write(.end)
            } catch {
                await body.cancel()
                try? await writer.write(.error(error))
            }
        }, count: length))
    }

    /// A live stream from an outside address (a radio station) through ffmpeg with `arguments`,
    /// which read `pipe:0` and write MP3 to `pipe:1` (`AudioFiles.shapedStreamArguments`: a level,
    /// the sleep timer's fade), for as long as the person listens or ffmpeg goes on (an `until`
    /// ends it), at most `maxBytes` read. The station is asked before answering, so one that
    /// cannot be played says why; what ffmpeg makes is handed on as the listener takes it, so a
    /// slow listener slows the fetching. A HEAD asks nothing of the station.
    func shapedRelay(_ url: URL, ffmpeg: String, arguments: [String], for request: Request, maxBytes: Int) async throws -> Response {
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "audio/mpeg")
        headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        if request.method == .HEAD { return Response(status: .ok, headers: headers) }
        let upstream = try await stream(url, range: nil, maxBytes: maxBytes)
        guard (200..<300).contains(upstream.status) else {
            await upstream.body.cancel()
            throw OutsideFetchError.status(upstream.status, host: url.host ?? "the station")
        }
        let body = upstream.body
        return Response(status: .ok, headers: headers, body: .init(asyncStream: { writer in
            let process: FFmpegPipe
            do {
                process = try FFmpegPipe(ffmpeg: ffmpeg, arguments: ["-protocol_whitelist", "pipe"] + arguments)
            } catch {
                await body.cancel()
                try? await writer.write(.error(error))
                return
            }
            await process.send(to: writer, feeding: Task {
                do {
                    while let chunk = try await body.next() { _ = try await process.write(Data(chunk.readableBytesView)) }
                } catch {}
                process.finishInput()
            })
            // The listener went away, or the shaped stream ended: nothing more is fetched.
            await body.cancel()
        }))
    }
}
