import AudioRender
import Foundation
import Playback
import ReverieAPI
import Vapor

extension RadioStationList: Content {}

/// Internet radio in Listen: radio-browser's top stations and search, a click counted when a
/// station starts playing, and the person's favourite stations (`favoriteRadioStations`).
struct RadioController: RouteCollection {
    let radioFavourites: Store<any RadioFavouriteRepository>
    let directory: RadioBrowser
    let client: GuardedHTTPClient
    /// The most of one stream relayed.
    let maxBytes: Int
    /// HLS-only stations: their playlists and segments, and the remux relay.
    let hls: HLSRelay
    /// The sleep timer's fade, which an `until` ends the stream in.
    var fade: SleepFade = SleepTimer.fade
    /// Stations as radio-browser last described them, so a stream's reconnects do not ask again.
    let stations = Recent<String, RadioStationInfo>(lifetime: .minutes(10), capacity: 1000)

    func boot(routes: any RoutesBuilder) throws {
        let radio = routes.grouped("api", "radio")
        radio.get("stations", use: stations)
        radio.post("stations", ":stationID", "click", use: click)
        radio.get("stations", ":stationID", "stream", use: stream)
        radio.get("stations", ":stationID", "segments", ":segment", use: segment)
        radio.get("favourites", use: favourites)
        radio.put("favourites", ":stationID", use: addFavourite)
        radio.delete("favourites", ":stationID", use: removeFavourite)
    }

    /// `GET /api/radio/stations[?q=NAME]`: stations by name, or the top stations.
    func stations(req: Request) async throws -> RadioStationList {
        _ = try req.user
        let text = (try req.queryString("q", maximumLength: 100) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return RadioStationList(stations: text.isEmpty ? try await directory.top(client: client) : try await directory.search(text, client: client))
    }

    /// `POST /api/radio/stations/{stationID}/click`: the station started playing.
    func click(req: Request) async throws -> HTTPStatus {
        _ = try req.user
        let id = try stationID(req)
        try await directory.click(id, client: client)
        return .noContent
    }

    /// `GET /api/radio/stations/{stationID}/stream[?alternate=1][?hls=1][&until=SECONDS][&level=0–1][&boost=true]`:
    /// the station's stream (`url_resolved`, or with `alternate` its listed `url`) through the
    /// guarded client, so it plays from the server's own address (no mixed content, no private
    /// addresses) for as long as the person listens. An HLS-only station plays through
    /// `HLSRelay`: its playlist with `hls=1` (for a browser with HLS built in), else its sound
    /// remuxed by ffmpeg into one stream.
    ///
    /// Shaped as a file's rendition is (issue 46): `until` ends it after that many seconds of
    /// sound, its last seconds the sleep timer's fade; `level` and `boost` set its level. Then
    /// ffmpeg encodes it as MP3 on the way, so a locked phone, which runs no script and whose
    /// Web Audio is silent, hears the fade and the level in the bytes. (Not with `hls=1`: the
    /// browser reads that playlist's segments itself.)
    func stream(req: Request) async throws -> Response {
        _ = try req.user
        let id = try stationID(req)
        let shape = try req.renditionShape(untilIn: 1...(24 * 3600))
        let station = try await station(id, req)
        let alternate = (try? req.query.get(Int.self, at: "alternate")) == 1
        guard let url = URL(string: alternate ? station.url : station.urlResolved) else { throw APIError.notFound("radio station") }
        let shaping = shape.until != nil || shape.changesLevel
            ? AudioFiles.shapedStreamArguments(gain: Double(shape.gain), boost: shape.boost, until: shape.until, fade: fade.seconds, curve: fade.ffmpegCurve)
            : nil
        if station.hls {
            if (try? req.query.get(Int.self, at: "hls")) == 1 {
                guard shaping == nil else {
                    throw APIError(.badRequest, code: "invalid_field", "until, level and boost shape the relayed stream, not the hls=1 playlist.")
                }
                return try await hls.playlist(id, url)
            }
            return try await hls.remux(url, codec: station.codec, shaping: shaping, for: req, maxBytes: maxBytes)
        }
        if let shaping { return try await client.shapedRelay(url, ffmpeg: hls.ffmpeg, arguments: shaping, for: req, maxBytes: maxBytes) }
        return try await client.relay(url, for: req, maxBytes: maxBytes)
    }

    /// `GET /api/radio/stations/{stationID}/segments/{segment}`: one segment of an HLS station's
    /// playlist as `?hls=1` gave it (its sequence number, or `init`), relayed from the station.
    func segment(req: Request) async throws -> Response {
        _ = try req.user
        let id = try stationID(req)
        let station = try await station(id, req)
        guard station.hls, let url = URL(string: station.urlResolved), let name = req.parameters.get("segment"),
              name == "init" || (name.count <= 10 && Int(name).map { $0 >= 0 } == true) else {
            throw APIError.notFound("segment of that station")
        }
        return try await hls.segment(id, url, name: name, for: req)
    }

    /// `GET /api/radio/favourites`: in the order they were added.
    func favourites(req: Request) async throws -> RadioStationList {
        RadioStationList(stations: try await radioFavourites.on(req).favourites(ownedBy: try req.user))
    }

    /// `PUT /api/radio/favourites/{stationID}`: kept as radio-browser describes it now.
    func addFavourite(req: Request) async throws -> RadioStationList {
        let user = try req.user
        let id = try stationID(req)
        let station = try await station(id, req)
        try await radioFavourites.on(req).save(station, stationID: id, ownedBy: user)
        return try await favourites(req: req)
    }

    /// `DELETE /api/radio/favourites/{stationID}`.
    func removeFavourite(req: Request) async throws -> HTTPStatus {
        let user = try req.user
        let id = try stationID(req)
        guard try await radioFavourites.on(req).delete(stationID: id, ownedBy: user) else {
            throw APIError(.notFound, code: "not_found", "That station is not among your favourites.")
        }
        return .noContent
    }

    /// The station as radio-browser describes it (kept ten minutes), or a 404.
    private func station(_ id: String, _ req: Request) async throws -> RadioStationInfo {
        if let kept = stations.value(for: id) { return kept }
        let generation = stations.generation
        guard let found = try await directory.station(id, client: client) else {
            throw APIError(.notFound, code: "not_found", "radio-browser has no station with that id.")
        }
        stations.store(found, for: id, readAt: generation)
        return found
    }

    private func stationID(_ req: Request) throws -> String {
        guard let text = req.parameters.get("stationID"), let id = UUID(uuidString: text) else { throw APIError.notFound("radio station") }
        return id.uuidString.lowercased()
    }
}
