import Fluent
import Foundation

/// A row that belongs to one user. Every user-owned model conforms, and every read of one goes
/// through `query(ownedBy:on:)` or `find(_:ownedBy:on:)`: isolation lives here, in one place.
public protocol UserOwnedModel: Model where IDValue == UUID {
    /// The column holding the owner's id (`\.$owner.$id`).
    static var ownerID: KeyPath<Self, FieldProperty<Self, UUID>> { get }
}

extension UserOwnedModel {
    /// A query that can only see `user`'s rows.
    public static func query(ownedBy user: AuthenticatedUser, on database: any Database) -> QueryBuilder<Self> {
        Self.query(on: database).filter(ownerID == user.id)
    }

    /// The row with `id` if `user` owns it; `nil` for another user's row, exactly as for a missing one.
    public static func find(_ id: UUID, ownedBy user: AuthenticatedUser, on database: any Database) async throws -> Self? {
        try await query(ownedBy: user, on: database).filter(\Self._$id == id).first()
    }
}
