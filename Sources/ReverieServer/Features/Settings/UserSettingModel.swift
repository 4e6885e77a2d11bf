import Fluent
import Foundation

/// One setting of one user, as a key and a JSON-encoded value (`theme` → `"PlainDark"`).
///
/// Keys follow the seeds where they still mean something (`contentMode`, `meditation-config`, …).
public final class UserSettingModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "user_settings"
    public static let ownerID: KeyPath<UserSettingModel, FieldProperty<UserSettingModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Field(key: "key") public var key: String
    /// JSON text of the value.
    @Field(key: "value") public var value: String
    @Timestamp(key: "updated_at", on: .update) public var updatedAt: Date?

    public init() {}

    public init(ownerID: UUID, key: String, value: String) {
        self.$owner.id = ownerID
        self.key = key
        self.value = value
    }
}
