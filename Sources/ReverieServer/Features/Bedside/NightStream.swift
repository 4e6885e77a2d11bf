import AudioRender
import Foundation
import NIOConcurrencyHelpers
import ReverieAPI
import Vapor

extension BedsideNightInfo: Content {}

/// Bedside's night as one live stream (issue 46): the room at the person's room volume and, from
/// the alarm's moment, the rising chime, made on the wall clock and paced in real time like a
/// radio, so a phone that plays it in a plain `<audio>` rings with its screen locked and no script
/// running. The plan is read again from the person's settings twice a second: a change (room,
/// volume, alarm time, Snooze, Stop) is heard after the stream's lead and a reading, and at once
/// on screen, where the page starts the stream again; a listener who comes back after a drop
/// hears where the night is now, not where it stopped.
///
/// `POST /api/bedside/night` answers the stream's address (one per person, kept in their settings);
/// `GET /api/bedside/night/{nightID}.mp3?kbps=` is the stream, MP3 mono at 16 to 128 kb/s.
///
/// The rate is the player's choice, since it decides when sound is heard: Chromium hands a
/// progressive download to its decoder only in whole 32 KiB blocks (its media cache's block), so a
/// live stream is heard `32 KiB ÷ rate − lead` late. At 128 kb/s with 3 s of lead that is nothing
/// (the chime within a second of its minute; 58 MB an hour); at 16 kb/s, 14 s (7.2 MB an hour). The page asks for
/// 128; a player without that block (Safari is reported to have none; a real iPhone must confirm)
/// may ask for 16.
struct NightStreamController: RouteCollection {
    let settings: Store<any SettingsRepository>
    /// The night streams playing now: at most three for one person (a phone and a spare).
    let streams: StreamsPerPerson
    let ffmpeg: String
    /// How long one connection plays at most (`ServerConfig.nightStreamSeconds`: 16 hours, a long
    /// night and the morning after).
    let longest: TimeInterval
    let now: @Sendable () -> Date

    static let settingKey = "bedside.night"
    static let sampleRate = 16_000
    /// Each stretch made at a time.
    static let stretch = 0.2
    /// How far ahead of the wall clock the stream is made: what the player holds in reserve, and
    /// enough for Chromium's 32 KiB blocks (2 s at 128 kb/s) to fill a second before they are due
    /// (at 2 s, one late block stalled the player for good 2.6 s behind). A change is heard
    /// after at most this and one reading of the settings (the page, screen on, also starts the
    /// stream again at once after a change of its own).
    static let lead = 3.0
    /// How far ahead of the wall clock a connection's first sound is made: what a player takes from
    /// the first bytes to the first sound (Chromium here: 0.9–1.0 s at 128 kb/s on a quiet machine,
    /// more on a busy one), so the chime is heard at its minute rather than that much after it. A
    /// player that starts sooner hears it as much early. (At 0.5 s, a locked run on a busy machine
    /// heard the chime 2.1 s late.)
    static let playerStart = 1.0
    /// How often the person's settings are read again.
    static let reading = 0.5
    /// The rates a player may ask for (kb/s; MPEG-2 Layer III at 16 kHz), and the one it gets unasked.
    static let rates = [16, 32, 64, 128]
    static let defaultRate = 128

    /// The stream's first bytes: a small ID3v2.4 tag with its title (no padding: any byte before
    /// the sound delays it in Chromium's 32 KiB blocks).
    static let head: Data = {
        let title = Array("Reverie · the night".utf8)
        let frame = Array("TIT2".utf8) + syncsafe(title.count + 1) + [0, 0, 3] + title   // 3: UTF-8
        return Data(Array("ID3".utf8) + [4, 0, 0] + syncsafe(frame.count) + frame)
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
        let all = try await store.all(ownedBy: user)
        let stored = all[Self.settingKey].flatMap { try? JSONDecoder().decode(String.self, from: Data($0.utf8)) }
        let id: String
        if let stored, UUID(uuidString: stored) != nil {
            id = stored
        } else {
            id = UUID().uuidString.lowercased()
            try await store.save([Self.settingKey: String(decoding: try JSONEncoder().encode(id), as: UTF8.self)], ownedBy: user)
        }
        // The chime and the room are made now, while the person is still setting the alarm.
        let room = Self.plan(all).room
        NightMix.prepare(sampleRate: Self.sampleRate, room: room)
        return BedsideNightInfo(stream: "/api/bedside/night/\(id).mp3", contentType: "audio/mpeg", bitrate: Self.defaultRate * 1000,
                                prepared: NightMix.prepared(sampleRate: Self.sampleRate, room: room))
    }

    func stream(req: Request) async throws -> Response {
        let user = try req.user
        var asked = (req.parameters.get("nightID") ?? "").lowercased()
        if asked.hasSuffix(".mp3") { asked.removeLast(4) }
        let stored = try await settings.on(req).all(ownedBy: user)
        let id = stored[Self.settingKey].flatMap { try? JSONDecoder().decode(String.self, from: Data($0.utf8)) }
        guard let id, id == asked else { throw APIError.notFound("night stream") }
        let kbps = try req.queryInteger("kbps", in: 16...128) ?? Self.defaultRate
        guard Self.rates.contains(kbps) else {
            throw APIError(.badRequest, code: "invalid_field", "kbps: one of \(Self.rates.map(String.init).joined(separator: ", ")).")
        }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "audio/mpeg")
        headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        if req.method == .HEAD { return Response(status: .ok, headers: headers) }
        guard let ticket = streams.begin(for: user.id) else {
            throw APIError(.tooManyRequests, code: "too_many_streams",
                           "\(streams.limit) night streams already play for you: stop one on another device first.")
        }
        let pipe: FFmpegPipe
        do {
            pipe = try FFmpegPipe(ffmpeg: ffmpeg, arguments: NightMix.mp3Arguments(sampleRate: Self.sampleRate, kbps: kbps))
        } catch {
            streams.end(ticket)
            throw error
        }
        let settings = settings, now = now, logger = req.logger, streams = streams, longest = longest
        return Response(status: .ok, headers: headers, body: .init(asyncStream: { writer in
            // (The listener going away stops the making.)
            await pipe.send(to: writer, head: Self.head, feeding: Task {
                await Self.make(into: pipe, plan: { Self.plan(try await settings.outside.all(ownedBy: user)) },
                                longest: longest, now: now, logger: logger)
            })
            streams.end(ticket)
        }))
    }

    /// Makes the night into `pipe` a stretch at a time, `lead` seconds ahead of the wall clock,
    /// reading the plan again every `reading` seconds, until cancelled or `longest` has played.
    static func make(into pipe: FFmpegPipe, plan read: @Sendable () async throws -> NightMix.Plan, longest: TimeInterval,
                     now: @Sendable () -> Date, logger: Logger) async {
        var mix = NightMix(sampleRate: sampleRate)
        let count = AudioBuffer.sampleCount(stretch, sampleRate)
        let began = now().addingTimeInterval(playerStart)
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
                if next < wall.addingTimeInterval(-lead) { next = wall.addingTimeInterval(playerStart) }
                let ahead = next.timeIntervalSince(wall)
                if ahead > lead + playerStart {
                    try await Task.sleep(for: .milliseconds(Int((ahead - lead - playerStart) * 1000)))
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

