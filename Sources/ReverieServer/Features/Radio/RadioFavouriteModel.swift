import Fluent
import Foundation

/// A radio station a person keeps (`favoriteRadioStations`), as radio-browser described it.
public final class RadioFavouriteModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "radio_favourites"
    public static let ownerID: KeyPath<RadioFavouriteModel, FieldProperty<RadioFavouriteModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Field(key: "station_id") public var stationID: String
    /// The station as JSON (`RadioStationInfo`).
    @Field(key: "station") public var station: String
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}
}
