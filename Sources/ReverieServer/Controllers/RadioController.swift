import Foundation
import ReverieAPI
import Vapor

extension RadioStationList: Content {}

/// Internet radio in Listen: radio-browser's top stations and search, a click counted when a
/// station starts playing, and the person's favourite stations (`favoriteRadioStations`).
struct RadioController: RouteCollection {
    let directory: RadioBrowser

    func boot(routes: any RoutesBuilder) throws {
        let radio = routes.grouped("api", "radio")
        radio.get("stations", use: stations)
        radio.post("stations", ":stationID", "click", use: click)
        radio.get("favourites", use: favourites)
        radio.put("favourites", ":stationID", use: addFavourite)
        radio.delete("favourites", ":stationID", use: removeFavourite)
    }

    /// `GET /api/radio/stations[?q=NAME]`: stations by name, or the top stations.
    func stations(req: Request) async throws -> RadioStationList {
        _ = try req.user
        let text = (try req.queryString("q", maximumLength: 100) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            return RadioStationList(stations: text.isEmpty ? try await directory.top(client: req.outside) : try await directory.search(text, client: req.outside))
        } catch let error as OutsideFetchError {
            throw error.apiError
        } catch is DecodingError {
            throw APIError(.badGateway, code: "radio_unreadable", "radio-browser answered with something Reverie cannot read; try again in a moment.")
        }
    }

    /// `POST /api/radio/stations/{stationID}/click`: the station started playing.
    func click(req: Request) async throws -> HTTPStatus {
        _ = try req.user
        let id = try stationID(req)
        do {
            try await directory.click(id, client: req.outside)
        } catch let error as OutsideFetchError {
            throw error.apiError
        }
        return .noContent
    }

    /// `GET /api/radio/favourites`: in the order they were added.
    func favourites(req: Request) async throws -> RadioStationList {
        let rows = try await req.repositories.podcasts.radioFavourites(ownedBy: try req.user)
        return RadioStationList(stations: rows.compactMap { try? JSONDecoder().decode(RadioStationInfo.self, from: Data($0.station.utf8)) })
    }

    /// `PUT /api/radio/favourites/{stationID}`: kept as radio-browser describes it now.
    func addFavourite(req: Request) async throws -> RadioStationList {
        let user = try req.user
        let id = try stationID(req)
        let station: RadioStationInfo?
        do {
            station = try await directory.station(id, client: req.outside)
        } catch let error as OutsideFetchError {
            throw error.apiError
        } catch is DecodingError {
            throw APIError(.badGateway, code: "radio_unreadable", "radio-browser answered with something Reverie cannot read; try again in a moment.")
        }
        guard let station else { throw APIError(.notFound, code: "not_found", "radio-browser has no station with that id.") }
        try await req.repositories.podcasts.saveRadioFavourite(stationID: id, station: String(decoding: try JSONEncoder().encode(station), as: UTF8.self), ownedBy: user)
        return try await favourites(req: req)
    }

    /// `DELETE /api/radio/favourites/{stationID}`.
    func removeFavourite(req: Request) async throws -> HTTPStatus {
        let user = try req.user
        let id = try stationID(req)
        guard try await req.repositories.podcasts.deleteRadioFavourite(stationID: id, ownedBy: user) else {
            throw APIError(.notFound, code: "not_found", "That station is not among your favourites.")
        }
        return .noContent
    }

    private func stationID(_ req: Request) throws -> String {
        guard let text = req.parameters.get("stationID"), let id = UUID(uuidString: text) else { throw APIError.notFound("radio station") }
        return id.uuidString.lowercased()
    }
}
