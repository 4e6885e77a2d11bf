import Fluent
import Foundation
import ReverieAPI

/// The radio stations each person keeps (`favoriteRadioStations`), as radio-browser described
/// them when they were added.
public protocol RadioFavouriteRepository: Sendable {
    /// The person's favourite stations, in the order they were added. A row whose stored
    /// description no longer decodes is left out.
    func favourites(ownedBy user: AuthenticatedUser) async throws -> [RadioStationInfo]
    /// Keeps `station` under `stationID` (radio-browser's station UUID, lower case), replacing
    /// what was kept for it before.
    func save(_ station: RadioStationInfo, stationID: String, ownedBy user: AuthenticatedUser) async throws
    /// Forgets the station; false when the person did not keep it.
    func delete(stationID: String, ownedBy user: AuthenticatedUser) async throws -> Bool
}

/// `RadioFavouriteRepository` on Fluent: one `radio_favourites` row a station, the station as JSON.
struct FluentRadioFavouriteRepository: RadioFavouriteRepository {
    let database: any Database

    func favourites(ownedBy user: AuthenticatedUser) async throws -> [RadioStationInfo] {
        let rows = try await RadioFavouriteModel.query(ownedBy: user, on: database).sort(\.$createdAt).all()
        return rows.compactMap { try? JSONDecoder().decode(RadioStationInfo.self, from: Data($0.station.utf8)) }
    }

    func save(_ station: RadioStationInfo, stationID: String, ownedBy user: AuthenticatedUser) async throws {
        let json = String(decoding: try JSONEncoder().encode(station), as: UTF8.self)
        if let found = try await RadioFavouriteModel.query(ownedBy: user, on: database).filter(\.$stationID == stationID).first() {
            found.station = json
            try await found.save(on: database)
            return
        }
        let row = RadioFavouriteModel()
        row.$owner.id = user.id
        row.stationID = stationID
        row.station = json
        try await row.create(on: database)
    }

    func delete(stationID: String, ownedBy user: AuthenticatedUser) async throws -> Bool {
        guard let found = try await RadioFavouriteModel.query(ownedBy: user, on: database).filter(\.$stationID == stationID).first() else { return false }
        try await found.delete(on: database)
        return true
    }
}
