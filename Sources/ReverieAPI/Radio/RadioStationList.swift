import Foundation

/// `GET /api/radio/stations` and `GET /api/radio/favourites`.
public struct RadioStationList: Codable, Sendable, Equatable {
    public var stations: [RadioStationInfo]

    public init(stations: [RadioStationInfo]) {
        self.stations = stations
    }
}
