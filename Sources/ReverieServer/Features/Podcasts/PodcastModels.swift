import Fluent
import ReverieAPI
import Foundation

/// A podcast feed, kept once however many people subscribe (a feed is public): what it last said,
/// and when and how it was last fetched.
public final class PodcastModel: Model, @unchecked Sendable {
    public static let schema = "podcasts"

    @ID(key: .id) public var id: UUID?
    /// The address it is fetched from (after a permanent redirect, the new one).
    @Field(key: "feed_url") public var feedURL: String
    @Field(key: "title") public var title: String
    @OptionalField(key: "author") public var author: String?
    @OptionalField(key: "image") public var image: String?
    @OptionalField(key: "link") public var link: String?
    @OptionalField(key: "description") public var summary: String?
    /// For conditional GET: what the server sent last time.
    @OptionalField(key: "etag") public var etag: String?
    @OptionalField(key: "last_modified") public var lastModified: String?
    @OptionalField(key: "last_refreshed_at") public var lastRefreshedAt: Date?
    /// When it is next due; a scheduler that takes it pushes this on first, so only one does.
    @Field(key: "next_refresh_at") public var nextRefreshAt: Date
    /// Refreshes that failed in a row (the back-off doubles with each).
    @Field(key: "failures") public var failures: Int
    @OptionalField(key: "last_error") public var lastError: String?
    /// `FeedRepair` raw values, one a line; nil for none.
    @OptionalField(key: "feed_repairs") public var feedRepairs: String?
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}

    init(feedURL: String, title: String, nextRefreshAt: Date) {
        self.feedURL = feedURL
        self.title = title
        self.nextRefreshAt = nextRefreshAt
        self.failures = 0
    }
}

/// One episode of a podcast, as its feed last described it.
public final class EpisodeModel: Model, @unchecked Sendable {
    public static let schema = "podcast_episodes"

    @ID(key: .id) public var id: UUID?
    @Parent(key: "podcast_id") public var podcast: PodcastModel
    /// The feed's guid (or what stands for it): how a refresh knows an episode again.
    @Field(key: "guid") public var guid: String
    @Field(key: "title") public var title: String
    @OptionalField(key: "published") public var published: Date?
    @OptionalField(key: "duration") public var duration: Double?
    @OptionalField(key: "description") public var summary: String?
    @OptionalField(key: "image") public var image: String?
    @OptionalField(key: "enclosure_url") public var enclosureURL: String?
    @OptionalField(key: "enclosure_type") public var enclosureType: String?
    @OptionalField(key: "enclosure_length") public var enclosureLength: Int?
    /// `podcast:chapters` URL.
    @OptionalField(key: "chapters_url") public var chaptersURL: String?
    /// `podcast:transcript` links as JSON `[{"url", "type", "language"}]`.
    @Field(key: "transcripts") public var transcripts: String
    /// When Reverie first saw it (what "new" is measured by).
    @Field(key: "first_seen_at") public var firstSeenAt: Date

    public init() {}
}

/// A person's subscription to a podcast.
public final class SubscriptionModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "podcast_subscriptions"
    public static let ownerID: KeyPath<SubscriptionModel, FieldProperty<SubscriptionModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Parent(key: "podcast_id") public var podcast: PodcastModel
    @Field(key: "favourite") public var favourite: Bool
    @Field(key: "delete_after_played") public var deleteAfterPlayed: Bool
    /// Episodes first seen after this are new to the person.
    @Field(key: "seen_until") public var seenUntil: Date
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}

    init(ownerID: UUID, podcastID: UUID, seenUntil: Date) {
        self.$owner.id = ownerID
        self.$podcast.id = podcastID
        self.favourite = false
        self.deleteAfterPlayed = false
        self.seenUntil = seenUntil
    }
}

/// A person's download of an episode: `<data>/media/podcasts/<id>.mp3`, levelled to −16 LUFS.
public final class EpisodeDownloadModel: Model, UserOwnedModel, @unchecked Sendable {
    public static let schema = "episode_downloads"
    public static let ownerID: KeyPath<EpisodeDownloadModel, FieldProperty<EpisodeDownloadModel, UUID>> = \.$owner.$id

    @ID(key: .id) public var id: UUID?
    @Parent(key: "owner_id") public var owner: UserModel
    @Parent(key: "episode_id") public var episode: EpisodeModel
    /// `queued`, `downloading`, `ready` or `failed`.
    @Field(key: "status") public var status: String
    @OptionalField(key: "job_id") public var jobID: UUID?
    @Field(key: "trim_silence") public var trimSilence: Bool
    @OptionalField(key: "bytes") public var bytes: Int?
    @OptionalField(key: "duration") public var duration: Double?
    @OptionalField(key: "measured_loudness") public var measuredLoudness: Double?
    /// `[[start, end], …]` of the original kept, JSON; `[]` when nothing was cut.
    @Field(key: "time_map") public var timeMap: String
    /// Chapters the original file carried (ID3 `CHAP` or MP4), `[EpisodeChapter]` JSON in the
    /// original's seconds; nil when it had none.
    @OptionalField(key: "chapters") public var chapters: String?
    @Timestamp(key: "created_at", on: .create) public var createdAt: Date?

    public init() {}

    init(ownerID: UUID, episodeID: UUID, trimSilence: Bool) {
        self.$owner.id = ownerID
        self.$episode.id = episodeID
        self.status = EpisodeDownloadInfo.Status.queued.rawValue
        self.trimSilence = trimSilence
        self.timeMap = "[]"
    }
}

struct CreatePodcasts: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(PodcastModel.schema)
            .id()
            .field("feed_url", .string, .required)
            .field("title", .string, .required)
            .field("author", .string)
            .field("image", .string)
            .field("link", .string)
            .field("description", .string)
            .field("etag", .string)
            .field("last_modified", .string)
            .field("last_refreshed_at", .datetime)
            .field("next_refresh_at", .datetime, .required)
            .field("failures", .int, .required)
            .field("last_error", .string)
            .field("created_at", .datetime)
            .unique(on: "feed_url")
            .create()
        try await database.schema(EpisodeModel.schema)
            .id()
            .field("podcast_id", .uuid, .required, .references(PodcastModel.schema, "id", onDelete: .cascade))
            .field("guid", .string, .required)
            .field("title", .string, .required)
            .field("published", .datetime)
            .field("duration", .double)
            .field("description", .string)
            .field("image", .string)
            .field("enclosure_url", .string)
            .field("enclosure_type", .string)
            .field("enclosure_length", .int64)
            .field("chapters_url", .string)
            .field("transcripts", .string, .required)
            .field("first_seen_at", .datetime, .required)
            .unique(on: "podcast_id", "guid")
            .create()
        try await database.schema(SubscriptionModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("podcast_id", .uuid, .required, .references(PodcastModel.schema, "id", onDelete: .cascade))
            .field("favourite", .bool, .required)
            .field("delete_after_played", .bool, .required)
            .field("seen_until", .datetime, .required)
            .field("created_at", .datetime)
            .unique(on: "owner_id", "podcast_id")
            .create()
        try await database.schema(EpisodeDownloadModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("episode_id", .uuid, .required, .references(EpisodeModel.schema, "id", onDelete: .cascade))
            .field("status", .string, .required)
            .field("job_id", .uuid)
            .field("trim_silence", .bool, .required)
            .field("bytes", .int64)
            .field("duration", .double)
            .field("measured_loudness", .double)
            .field("time_map", .string, .required)
            .field("chapters", .string)
            .field("created_at", .datetime)
            .unique(on: "owner_id", "episode_id")
            .create()
        try await database.schema(RadioFavouriteModel.schema)
            .id()
            .field("owner_id", .uuid, .required, .references(UserModel.schema, "id", onDelete: .cascade))
            .field("station_id", .string, .required)
            .field("station", .string, .required)
            .field("created_at", .datetime)
            .unique(on: "owner_id", "station_id")
            .create()
    }

    func revert(on database: any Database) async throws {
        for schema in [RadioFavouriteModel.schema, EpisodeDownloadModel.schema, SubscriptionModel.schema, EpisodeModel.schema, PodcastModel.schema] {
            try await database.schema(schema).delete()
        }
    }
}

/// Podcasts say what their feed needed to be read (issue 35's liberal reader).
struct AddFeedRepairs: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema(PodcastModel.schema).field("feed_repairs", .string).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema(PodcastModel.schema).deleteField("feed_repairs").update()
    }
}
