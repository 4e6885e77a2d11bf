import Foundation

/// A radio station, as radio-browser lists it.
public struct RadioStationInfo: Codable, Sendable, Equatable {
    /// radio-browser's `stationuuid`.
    public var id: String
    public var name: String
    /// The address as listed (perhaps a playlist).
    public var url: String
    /// The stream itself, what plays.
    public var urlResolved: String
    public var homepage: String?
    public var favicon: String?
    public var country: String?
    public var tags: [String]
    public var codec: String?
    public var bitrate: Int?
    /// The station streams only as HLS.
    public var hls: Bool
    public var votes: Int?

    public init(id: String, name: String, url: String, urlResolved: String, homepage: String?, favicon: String?, country: String?,
                tags: [String], codec: String?, bitrate: Int?, hls: Bool, votes: Int?) {
        (self.id, self.name, self.url, self.urlResolved, self.homepage, self.favicon) = (id, name, url, urlResolved, homepage, favicon)
        (self.country, self.tags, self.codec, self.bitrate, self.hls, self.votes) = (country, tags, codec, bitrate, hls, votes)
    }
}
