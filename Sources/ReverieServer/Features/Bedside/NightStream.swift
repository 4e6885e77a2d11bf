import AudioRender
import Foundation
import NIOConcurrencyHelpers
import ReverieAPI
import Vapor

extension BedsideNightInfo: Content {}

/// Bedside's night as one live stream (issue 46): the room at the person's room volume and, from
/// the alarm's moment, the rising chime, made on the wall clock and paced in real time like a
/// radio, so a phone that plays it in a plain `<audio>` rings with its screen locked and no script
/// running. The plan is read again from the person's settings twice a second, so a change on screen
/// (room, volume, alarm time, Snooze, Stop) is heard within two seconds; a listener who comes back after a
/// drop hears where the night is now, not where it stopped.
///
/// `POST /api/bedside/night` answers the stream's address (one per person, kept in their settings);
/// `GET /api/bedside/night/{nightID}` is the stream, MP3 at 16 kb/s mono (7.2 MB an hour).
struct NightStreamController: RouteCollection {
    let settings: Store<any SettingsRepository>
    let streams: NightStreams
    let ffmpeg: String
    let now: @Sendable () -> Date

    static let settingKey = "bedside.night"
    static let sampleRate = 16_000
    /// Each stretch made at a time.
    static let stretch = 0.2
    /// How far ahead of the wall clock the stream is made (what the player holds in reserve; a
    /// change is heard after at most this and one reading of the settings).
    static let lead = 1.0
    /// How often the person's settings are read again.
    static let reading = 0.5
    /// How long one connection plays at most (a long night and the morning after).
    static let longest: TimeInterval = 16 * 3600
    static let format = ["-f", "f32le", "-ar", String(sampleRate), "-ac", "1", "-i", "pipe:0",
                         "-c:a", "libmp3lame", "-b:a", "16k", "-id3v2_version", "0", "-write_xing", "0", "-f", "mp3", "pipe:1"]

    /// The stream's first bytes: an ID3v2.4 tag (its title, then padding) of 40 kB. A browser reads
    /// about 32 kB of a stream before it starts to play (Chromium: 14–16 s of a 16 kb/s stream
    /// without it); the padding is that much at once, so the night plays from its first second,
    /// in step with the wall clock.
    static let head: Data = {
        let title = Array("Reverie · the night".utf8)
        var frame = Array("TIT2".utf8) + syncsafe(title.count + 1) + [0, 0, 3] + title   // 3: UTF-8
        let size = 40_000 - 10
        frame += [UInt8](repeating: 0, count: size - frame.count)
        return Data(Array("ID3".utf8) + [4, 0, 0] + syncsafe(size) + frame)
    }()

    private static func syncsafe(_ value: Int) -> [UInt8] {
        [UInt8((value >> 21) & 0x7F), UInt8((value >> 14) & 0x7F), UInt8((value >> 7) & 0x7F), UInt8(value & 0x7F)]
    }

    func boot(routes: any RoutesBuilder) throws {
        routes.post("api", "bedside", "night", use: create)
        routes.on(.GET, "api", "bedside", "night", ":nightID", use: stream)
    }

    /// The person's night stream: its address, made once and kept.
    func create(req: Request) async throws -> BedsideNightInfo {
        let user = try req.user
        let store = settings.on(req)
        let stored = try await store.all(ownedBy: user)[Self.settingKey].flatMap { try? JSONDecoder().decode(String.self, from: Data($0.utf8)) }
        let id: String
        if let stored, UUID(uuidString: stored) != nil {
            id = stored
        } else {
            id = UUID().uuidString.lowercased()
            try await store.save([Self.settingKey: String(decoding: try JSONEncoder().encode(id), as: UTF8.self)], ownedBy: user)
        }
        // The chime and the room are made now, while the person is still setting the alarm.
        let room = Self.plan(try await store.all(ownedBy: user)).room
        NightMix.prepare(sampleRate: Self.sampleRate, room: room)
        // Named .mp3: Chromium reads a stream without a known extension for 12–16 s before it
        // plays (its probe is less sure of 72-byte frames of silence); with it, at once.
        return BedsideNightInfo(stream: "/api/bedside/night/\(id).mp3", contentType: "audio/mpeg", bitrate: 16_000,
                                prepared: NightMix.prepared(sampleRate: Self.sampleRate, room: room))
    }

    func stream(req: Request) async throws -> Response {
        let user = try req.user
        var asked = (req.parameters.get("nightID") ?? "").lowercased()
        if asked.hasSuffix(".mp3") { asked.removeLast(4) }
        let stored = try await settings.on(req).all(ownedBy: user)
        let id = stored[Self.settingKey].flatMap { try? JSONDecoder().decode(String.self, from: Data($0.utf8)) }
        guard let id, id == asked else { throw APIError.notFound("night stream") }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "audio/mpeg")
        headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        if req.method == .HEAD { return Response(status: .ok, headers: headers) }
        guard let ticket = streams.begin(for: user.id) else {
            throw APIError(.tooManyRequests, code: "too_many_streams",
                           "\(NightStreams.perPerson) night streams already play for you: stop one on another device first.")
        }
        let pipe: FFmpegPipe
        do {
            pipe = try FFmpegPipe(ffmpeg: ffmpeg, arguments: Self.format)
        } catch {
            streams.end(ticket)
            throw error
        }
        let settings = settings, now = now, logger = req.logger, streams = streams
        return Response(status: .ok, headers: headers, body: .init(asyncStream: { writer in
            let making = Task {
                await Self.make(into: pipe, plan: { Self.plan(try await settings.outside.all(ownedBy: user)) }, now: now, logger: logger)
            }
            do {
                try await writer.write(.buffer(ByteBuffer(data: Self.head)))
                for await chunk in pipe.output {
                    try await writer.write(.buffer(ByteBuffer(data: chunk)))
                    pipe.taken()
                }
                try await writer.write(.end)
            } catch {
                try? await writer.write(.error(error))
            }
            // The listener went away: nothing more is made.
            making.cancel()
            pipe.stop()
            streams.end(ticket)
        }))
    }

    /// Makes the night into `pipe` a stretch at a time, `lead` seconds ahead of the wall clock,
    /// reading the plan again every `reading` seconds, until cancelled or `longest` has played.
    static func make(into pipe: FFmpegPipe, plan read: @Sendable () async throws -> NightMix.Plan,
                     now: @Sendable () -> Date, logger: Logger) async {
        var mix = NightMix(sampleRate: sampleRate)
        let count = AudioBuffer.sampleCount(stretch, sampleRate)
        let began = now()
        var next = began   // the wall-clock moment the next stretch starts at
        var plan: NightMix.Plan?
        var readAt = Date.distantPast
        do {
            while !Task.isCancelled, next.timeIntervalSince(began) < longest {
                let wall = now()
                if wall.timeIntervalSince(readAt) >= Self.reading || plan == nil {
                    plan = (try? await read()) ?? plan ?? NightMix.Plan(room: .silence, roomVolume: 0, alarmAt: nil)
                    readAt = wall
                }
                // A stall longer than the lead (the machine, the network): the night goes on from now.
                if next < wall.addingTimeInterval(-lead) { next = wall }
                let ahead = next.timeIntervalSince(wall)
                if ahead > lead {
                    try await Task.sleep(for: .milliseconds(Int((ahead - lead) * 1000)))
                    continue
                }
                let samples = mix.render(plan!, from: next, count: count)
                _ = try await pipe.write(samples.withUnsafeBufferPointer { Data(buffer: $0) })
                next = next.addingTimeInterval(Double(count) / Double(sampleRate))
            }
        } catch is CancellationError {
        } catch {
            if !Task.isCancelled { logger.info("A night stream ended: \(error)") }
        }
        pipe.finishInput()
    }

    /// The night as the person's settings have it now.
    static func plan(_ stored: [String: String]) -> NightMix.Plan {
        let bedside = SettingsController.bedside(from: stored)
        let alarmAt = (bedside.alarmAt ?? 0) > 0 ? Date(timeIntervalSince1970: (bedside.alarmAt ?? 0) / 1000) : nil
        return NightMix.Plan(room: RoomSound(rawValue: bedside.room ?? "") ?? .rain, roomVolume: bedside.roomVolume ?? 0.5, alarmAt: alarmAt)
    }
}

/// The night streams playing now, at most `perPerson` for one person (a phone and a spare).
final class NightStreams: Sendable {
    static let perPerson = 3
    struct Ticket: Sendable {
        let user: UUID
    }

    private let playing = NIOLockedValueBox<[UUID: Int]>([:])

    func begin(for user: UUID) -> Ticket? {
        playing.withLockedValue { counts in
            guard counts[user, default: 0] < Self.perPerson else { return nil }
            counts[user, default: 0] += 1
            return Ticket(user: user)
        }
    }

    func end(_ ticket: Ticket) {
        playing.withLockedValue { counts in
            counts[ticket.user, default: 1] -= 1
            if counts[ticket.user] == 0 { counts[ticket.user] = nil }
        }
    }

    /// Streams playing now, for everyone.
    var count: Int { playing.withLockedValue { $0.values.reduce(0, +) } }
}
