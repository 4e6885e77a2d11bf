import AudioRender
import Foundation
import MediaFormats
import NIOConcurrencyHelpers
import NIOCore
import Vapor

/// HLS-only radio stations (issue 35). Every byte comes through the guarded client (never from
/// ffmpeg's own fetching, which would reach private addresses), and the app loads media from its
/// own address only, so both ways a station plays go through the server:
/// - **Native HLS** (Safari): the station's media playlist, its segment addresses rewritten to
///   `segments/{sequence}` here, each segment then relayed as it is asked for.
/// - **Everywhere else**: a remux relay. The segments are fetched in order (a live list is read
///   again every target duration, starting near its live edge) and fed to ffmpeg, which copies
///   their sound into one stream a media element plays (`audio/aac`, or `audio/mpeg` for MP3).
struct HLSRelay: Sendable {
    let client: GuardedHTTPClient
    var ffmpeg = "ffmpeg"
    /// Media playlists as last read, by station, for the segments asked for through them.
    let playlists = Recent<String, Resolved>(lifetime: .seconds(4), capacity: 500)

    /// The most a playlist and a segment may be.
    static let segmentBytes = 16 << 20
    /// How far back from a live list's end the relay starts (segments).
    static let liveEdge = 3

    /// A station's media playlist and where it was read from (relative URIs resolve against it).
    struct Resolved: Sendable {
        var url: URL
        var media: HLSPlaylist.Media
        /// The chosen variant's CODECS, when a master playlist named them.
        var codecs: String? = nil
    }

    // MARK: Reading playlists

    /// The media playlist at `url`, through a master playlist's preferred variant when it is one.
    func resolve(_ url: URL) async throws -> Resolved {
        var address = url
        var codecs: String?
        for _ in 0..<3 {
            let answer = try await client.get(address, accept: "application/vnd.apple.mpegurl, audio/mpegurl, */*", maxBytes: HLSPlaylist.maximumBytes)
            guard answer.status == 200 else { throw OutsideFetchError.status(answer.status, host: answer.url.host ?? "the station") }
            let playlist: HLSPlaylist
            do {
                playlist = try HLSPlaylist.parse(Data(answer.body.readableBytesView))
            } catch let error as MediaFormatsError {
                throw RadioError.unreadablePlaylist("\(error)")
            }
            switch playlist {
            case let .media(media):
                guard !media.encrypted else {
                    throw RadioError.encrypted
                }
                return Resolved(url: answer.url, media: media, codecs: codecs)
            case let .master(variants):
                guard let variant = HLSPlaylist.preferred(variants), let next = URL(string: variant.uri, relativeTo: answer.url)?.absoluteURL else {
                    throw RadioError.noPlayableStream
                }
                address = next
                codecs = variant.codecs
            }
        }
        throw RadioError.playlistLoop
    }

    /// The media playlist for `station`, read at most every few seconds whoever asks.
    func current(_ stationID: String, _ url: URL) async throws -> Resolved {
        if let kept = playlists.value(for: stationID) { return kept }
        let generation = playlists.generation
        let resolved = try await resolve(url)
        playlists.store(resolved, for: stationID, readAt: generation)
        return resolved
    }

    // MARK: Native HLS

    /// The media playlist with every segment (and the initialization section) addressed here.
    func playlist(_ stationID: String, _ url: URL) async throws -> Response {
        let resolved = try await current(stationID, url)
        let media = resolved.media
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(media.initialization == nil ? 3 : 6)",
                     "#EXT-X-TARGETDURATION:\(Int(media.targetDuration.rounded(.up)))",
                     "#EXT-X-MEDIA-SEQUENCE:\(media.segments.first?.sequence ?? 0)"]
        if media.initialization != nil { lines.append(#"#EXT-X-MAP:URI="segments/init""#) }
        for segment in media.segments {
            lines.append("#EXTINF:\(segment.duration),")
            lines.append("segments/\(segment.sequence)")
        }
        if media.ended { lines.append("#EXT-X-ENDLIST") }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "application/vnd.apple.mpegurl")
        headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return Response(status: .ok, headers: headers, body: .init(string: lines.joined(separator: "\n") + "\n"))
    }

    /// One segment (`init` for the initialization section), relayed from the station.
    func segment(_ stationID: String, _ url: URL, name: String, for req: Request) async throws -> Response {
        let resolved = try await current(stationID, url)
        let uri: String?
        if name == "init" {
            uri = resolved.media.initialization
        } else {
            uri = Int(name).flatMap { sequence in resolved.media.segments.first { $0.sequence == sequence }?.uri }
        }
        guard let uri, let address = URL(string: uri, relativeTo: resolved.url)?.absoluteURL else {
            throw RadioError.segmentPassed
        }
        let response = try await client.relay(address, for: req, maxBytes: Self.segmentBytes)
        // Numbered by the station, which may number again from 0: never kept.
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        return response
    }

    // MARK: The remux relay

    /// The station's sound as one stream, for as long as the person listens (up to `maxBytes`).
    /// ffmpeg and the fetching start only when the body is written (a HEAD starts nothing), and
    /// stop when the listener goes; what ffmpeg makes is handed on as the listener takes it, so a
    /// slow listener slows the fetching rather than filling memory.
    /// With `shaping` (ffmpeg's arguments from `pipe:0` to MP3 on `pipe:1`: a level, the sleep
    /// timer's fade) the sound is encoded so instead of copied.
    func remux(_ url: URL, codec: String?, shaping: [String]? = nil, for req: Request, maxBytes: Int) async throws -> Response {
        // Read once before answering, so a station that cannot be played says why with its status.
        let first = try await resolve(url)
        // The sound's codec: the variant's CODECS when the master playlist named them, else the directory's.
        let named = (first.codecs ?? codec ?? "").lowercased()
        let mp3 = shaping != nil || named.contains("mp3") || named.contains("mp4a.40.34") || named.contains("mp4a.6b")
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: mp3 ? "audio/mpeg" : "audio/aac")
        headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        if req.method == .HEAD { return Response(status: .ok, headers: headers) }
        let client = client, ffmpeg = ffmpeg, logger = req.logger
        return Response(status: .ok, headers: headers, body: .init(asyncStream: { writer in
            let process: FFmpegPipe
            do {
                process = try FFmpegPipe.relay(ffmpeg: ffmpeg, format: mp3 ? "mp3" : "adts", shaping: shaping)
            } catch {
                try? await writer.write(.error(error))
                return
            }
            // (The listener going away, or the stream ending, stops the fetching.)
            await process.send(to: writer, feeding: Task { await Self.feed(process, from: first, client: client, maxBytes: maxBytes, logger: logger) })
        }))
    }

    /// How many target durations a live list may go without a new segment before the relay ends.
    static let patience = 6.0

    /// Fetches the segments in order and writes them to ffmpeg until the list ends, the relay
    /// is cancelled (the listener left), `maxBytes` have gone through, or a live list stops
    /// moving. A list whose numbering restarts or jumps is picked up again near its end; a
    /// segment that fails is passed over (three in a row end the relay).
    static func feed(_ process: FFmpegPipe, from first: Resolved, client: GuardedHTTPClient, maxBytes: Int, logger: Logger,
                     stillLimit: Double? = nil) async {
        var resolved = first
        var next: Int?
        var written = 0
        var initialized = false
        var failures = 0
        var still = 0.0   // seconds with nothing new
        do {
            while !Task.isCancelled {
                let media = resolved.media
                if !initialized, let map = media.initialization, let address = URL(string: map, relativeTo: resolved.url)?.absoluteURL {
                    written += try await process.write(try await bytes(address, client))
                    initialized = true
                }
                // A live list starts near its end; a finished one from its start. A list that no
                // longer holds the next segment (its numbering restarted, or moved on past it)
                // is taken up near its end again.
                if let expected = next, let firstSequence = media.segments.first?.sequence, let last = media.segments.last?.sequence,
                   expected < firstSequence || expected > last + 1 {
                    next = nil
                }
                if next == nil {
                    let start = media.ended ? 0 : max(0, media.segments.count - liveEdge)
                    next = media.segments.indices.contains(start) ? media.segments[start].sequence : nil
                }
                var added = false
                for segment in media.segments where segment.sequence >= (next ?? 0) {
                    guard !Task.isCancelled, written < maxBytes else { break }
                    next = segment.sequence + 1
                    guard let address = URL(string: segment.uri, relativeTo: resolved.url)?.absoluteURL else { continue }
                    let data: Data
                    do {
                        data = try await bytes(address, client)
                        failures = 0
                    } catch is CancellationError {
                        throw CancellationError()
                    } catch {
                        failures += 1
                        if failures >= 3 { throw error }
                        continue
                    }
                    written += try await process.write(data)
                    added = true
                }
                if media.ended || written >= maxBytes { break }
                // A live list is read again after a target duration (half of one when nothing was new).
                let wait = max(1, min(10, added ? media.targetDuration : media.targetDuration / 2))
                still = added ? 0 : still + wait
                if still > (stillLimit ?? max(30, media.targetDuration * patience)) {
                    logger.info("HLS relay of \(first.url.host ?? "a station") ended: its list stopped moving")
                    break
                }
                try await Task.sleep(for: .milliseconds(Int(wait * 1000)))
                resolved = try await HLSRelay(client: client).resolve(first.url)
            }
        } catch is CancellationError {
        } catch {
            if !Task.isCancelled { logger.info("HLS relay of \(first.url.host ?? "a station") ended: \(error)") }
        }
        process.finishInput()
    }

    private static func bytes(_ url: URL, _ client: GuardedHTTPClient) async throws -> Data {
        let answer = try await client.get(url, maxBytes: segmentBytes)
        guard answer.status == 200 else { throw OutsideFetchError.status(answer.status, host: answer.url.host ?? "the station") }
        return Data(answer.body.readableBytesView)
    }
}
