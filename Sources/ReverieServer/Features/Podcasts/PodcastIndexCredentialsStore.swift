import Fluent
import Foundation

/// The server owner's Podcast Index key and secret, which let podcast search ask Podcast Index
/// as well as iTunes. They are the owner's settings `podcastindex.key` and `podcastindex.secret`.
public protocol PodcastIndexCredentialsStore: Sendable {
    /// The owner's key and secret, or nil unless both are set and not empty.
    func credentials() async throws -> PodcastDirectory.PodcastIndexCredentials?
    /// Keeps the key and secret as `owner`'s settings (the caller checks `owner` is the owner).
    func save(_ credentials: PodcastDirectory.PodcastIndexCredentials, ownedBy owner: AuthenticatedUser) async throws
    /// Forgets every key and secret kept, whoever's settings hold them.
    func remove() async throws
}

/// `PodcastIndexCredentialsStore` on Fluent, in the `user_settings` rows the settings API also reads.
struct FluentPodcastIndexCredentialsStore: PodcastIndexCredentialsStore {
    let database: any Database

    static let keySetting = "podcastindex.key"
    static let secretSetting = "podcastindex.secret"

    func credentials() async throws -> PodcastDirectory.PodcastIndexCredentials? {
        let rows = try await UserSettingModel.query(on: database).join(UserModel.self, on: \UserSettingModel.$owner.$id == \UserModel.$id)
            .filter(UserModel.self, \.$isOwner == true).filter(\.$key ~~ [Self.keySetting, Self.secretSetting]).all()
        let values = Dictionary(rows.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        guard let key = values[Self.keySetting], let secret = values[Self.secretSetting], !key.isEmpty, !secret.isEmpty else { return nil }
        return PodcastDirectory.PodcastIndexCredentials(key: key, secret: secret)
    }

    func save(_ credentials: PodcastDirectory.PodcastIndexCredentials, ownedBy owner: AuthenticatedUser) async throws {
        try await FluentSettingsRepository(database: database)
            .save([Self.keySetting: credentials.key, Self.secretSetting: credentials.secret], ownedBy: owner)
    }

    func remove() async throws {
        try await UserSettingModel.query(on: database).filter(\.$key ~~ [Self.keySetting, Self.secretSetting]).delete()
    }
}
