import Foundation

/// Everything a person has, in one place (issue 33): the tables that hold their rows, the shared
/// tables whose rows stay only while someone uses them, and the server's own. Removing a person
/// (`UserRepository.delete`, `AccountRemoval`) goes by these lists, and a test compares them with
/// every table in the database and every folder under the data directory, so a feature that adds
/// a table or a folder and forgets a person's part in it fails that test.
enum PersonalData {
    /// Tables whose rows are one person's, by `owner_id`: removed with them, children before
    /// parents (a download before its subscription, a song's tracks before the song).
    static let tables = [
        "episode_downloads", "podcast_subscriptions", "radio_favourites", "queue_entries", "queues", "song_tracks", "compositions", "library_items",
        "article_marks", "articles", "jobs", "meditation_sessions", "progress_places", "progress_events", "speech_renders", "bedside_pieces",
        "user_settings", "auth_tokens", "episode_actions", "subscription_changes", "gpodder_devices", "login_flows", "app_sessions", "apps",
    ]

    /// Shared by whoever uses them: a podcast and its episodes stay while someone subscribes
    /// (`PodcastRepository.removeUnsubscribed`).
    static let sharedTables = ["podcasts", "podcast_episodes"]

    /// The server's own: the people themselves (a person's row goes last), Wind Down's audio the
    /// owner gives everyone, the migrations' log, and the songs' search index (kept in step with
    /// `compositions` by triggers, so a person's songs leave it with them).
    static let serverTables = [
        "users", "sleep_audio", "_fluent_migrations", "composition_search_keys", "compositions_fts", "compositions_fts_config",
        "compositions_fts_content", "compositions_fts_data", "compositions_fts_docsize", "compositions_fts_idx",
    ]

    /// Folders under `<data>/media` and `<data>/cache`, and whose files are in them.
    /// - `personal`: a person's own files, removed with them (`AccountRemoval`);
    /// - `shared`: kept by content and shared by everyone who has the same bytes, removed when the
    ///   last one who uses them goes (library files and their covers, renders, and what is made
    ///   from a library file: its sleep-timer renditions and practice speeds), and pictures from
    ///   other hosts, let go when no one's podcasts or stations show them any more;
    /// - `server`: made for everyone (Wind Down, Bedside and Meditate's sounds, rhymes, uploads
    ///   still arriving).
    static let personalFolders = ["media/podcasts"]
    static let sharedFolders = ["media/library", "media/artwork", "cache/speech", "cache/renditions", "cache/practice", "cache/artwork"]
    static let serverFolders = ["media/.incoming", "media/winddown", "cache/sleep", "cache/bedside", "cache/meditation", "cache/rhymes"]
}
