import Foundation

/// A podcast found by a directory search (iTunes or Podcast Index), before subscribing.
public struct PodcastFound: Codable, Sendable, Equatable {
    public var title: String
    public var author: String?
    public var feedURL: String
    public var artwork: String?
    public var episodeCount: Int?
    /// `itunes` or `podcastindex`.
    public var source: String

    public init(title: String, author: String?, feedURL: String, artwork: String?, episodeCount: Int?, source: String) {
        (self.title, self.author, self.feedURL, self.artwork, self.episodeCount, self.source) = (title, author, feedURL, artwork, episodeCount, source)
    }
}

/// `GET /api/podcasts/search`.
public struct PodcastSearchResult: Codable, Sendable, Equatable {
    public var results: [PodcastFound]
    /// Directories that could not be asked, and why (the other's results still come).
    public var problems: [String]

    public init(results: [PodcastFound], problems: [String]) {
        self.results = results
        self.problems = problems
    }
}

/// `POST /api/podcasts`: subscribe to a feed by its address.
public struct PodcastSubscribeRequest: Codable, Sendable, Equatable {
    public var feedURL: String

    public init(feedURL: String) {
        self.feedURL = feedURL
    }
}

/// `PATCH /api/podcasts/{podcastID}`: what changes (fields left out stay).
public struct PodcastUpdateRequest: Codable, Sendable, Equatable {
    public var favourite: Bool?
    /// A downloaded episode is deleted once it is played.
    public var deleteAfterPlayed: Bool?

    public init(favourite: Bool?, deleteAfterPlayed: Bool?) {
        self.favourite = favourite
        self.deleteAfterPlayed = deleteAfterPlayed
    }
}

/// A podcast a person subscribes to.
public struct PodcastInfo: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var author: String?
    public var image: String?
    public var feedURL: String
    public var link: String?
    public var favourite: Bool
    public var deleteAfterPlayed: Bool
    /// Episodes that arrived since the person last opened the podcast.
    public var newEpisodes: Int
    public var episodeCount: Int
    public var lastRefreshed: Date?
    /// Why the last refresh failed (cleared by the next that works).
    public var lastError: String?
    public var nextRefresh: Date?

    public init(id: String, title: String, author: String?, image: String?, feedURL: String, link: String?, favourite: Bool,
                deleteAfterPlayed: Bool, newEpisodes: Int, episodeCount: Int, lastRefreshed: Date?, lastError: String?, nextRefresh: Date?) {
        (self.id, self.title, self.author, self.image, self.feedURL, self.link) = (id, title, author, image, feedURL, link)
        (self.favourite, self.deleteAfterPlayed, self.newEpisodes, self.episodeCount) = (favourite, deleteAfterPlayed, newEpisodes, episodeCount)
        (self.lastRefreshed, self.lastError, self.nextRefresh) = (lastRefreshed, lastError, nextRefresh)
    }
}

/// `GET /api/podcasts`: favourites first, then by title.
public struct PodcastList: Codable, Sendable, Equatable {
    public var podcasts: [PodcastInfo]

    public init(podcasts: [PodcastInfo]) {
        self.podcasts = podcasts
    }
}

/// An episode's download: the file on the server, levelled, perhaps with silences shortened.
public struct EpisodeDownloadInfo: Codable, Sendable, Equatable {
    /// `queued`, `downloading`, `ready` or `failed`.
    public var status: String
    public var progress: Double
    public var message: String?
    public var jobID: String?
    public var bytes: Int?
    /// The file's length in seconds.
    public var duration: Double?
    /// Loudness before levelling (the file is at −16 LUFS).
    public var measuredLoudness: Double?
    public var trimmedSilence: Bool
    /// Seconds taken out by trimming.
    public var removedSeconds: Double
    /// The parts of the original kept, in order, as `[start, end]` seconds of the original: the
    /// file plays them back to back. Empty when nothing was cut.
    public var timeMap: [[Double]]

    public init(status: String, progress: Double, message: String?, jobID: String?, bytes: Int?, duration: Double?,
                measuredLoudness: Double?, trimmedSilence: Bool, removedSeconds: Double, timeMap: [[Double]]) {
        (self.status, self.progress, self.message, self.jobID, self.bytes) = (status, progress, message, jobID, bytes)
        (self.duration, self.measuredLoudness, self.trimmedSilence, self.removedSeconds, self.timeMap) = (duration, measuredLoudness, trimmedSilence, removedSeconds, timeMap)
    }
}

/// An episode of a podcast, with the person's place in it.
public struct EpisodeInfo: Codable, Sendable, Equatable {
    public var id: String
    public var podcastID: String
    public var title: String
    public var published: Date?
    /// Seconds, as the feed says.
    public var duration: Double?
    public var description: String?
    public var image: String?
    public var enclosureURL: String?
    public var enclosureType: String?
    public var enclosureLength: Int?
    public var hasChapters: Bool
    public var hasTranscript: Bool
    /// Arrived since the person last opened the podcast.
    public var isNew: Bool
    /// Heard to its natural end, or to 95%, or marked so.
    public var played: Bool
    /// Seconds into the episode (of the original), from the listening log.
    public var position: Double?
    public var download: EpisodeDownloadInfo?

    public init(id: String, podcastID: String, title: String, published: Date?, duration: Double?, description: String?, image: String?,
                enclosureURL: String?, enclosureType: String?, enclosureLength: Int?, hasChapters: Bool, hasTranscript: Bool,
                isNew: Bool, played: Bool, position: Double?, download: EpisodeDownloadInfo?) {
        (self.id, self.podcastID, self.title, self.published, self.duration, self.description, self.image) = (id, podcastID, title, published, duration, description, image)
        (self.enclosureURL, self.enclosureType, self.enclosureLength) = (enclosureURL, enclosureType, enclosureLength)
        (self.hasChapters, self.hasTranscript, self.isNew, self.played, self.position, self.download) = (hasChapters, hasTranscript, isNew, played, position, download)
    }
}

/// `GET /api/podcasts/{podcastID}`: the podcast and its episodes, newest first.
public struct PodcastDetail: Codable, Sendable, Equatable {
    public var podcast: PodcastInfo
    public var description: String?
    public var episodes: [EpisodeInfo]

    public init(podcast: PodcastInfo, description: String?, episodes: [EpisodeInfo]) {
        self.podcast = podcast
        self.description = description
        self.episodes = episodes
    }
}

/// `POST /api/episodes/{episodeID}/download`.
public struct EpisodeDownloadRequest: Codable, Sendable, Equatable {
    /// Shorten long silences (conservatively: never into speech, even on a quietly mixed show).
    public var trimSilence: Bool?

    public init(trimSilence: Bool?) {
        self.trimSilence = trimSilence
    }
}

/// `POST /api/episodes/{episodeID}/played`.
public struct EpisodePlayedRequest: Codable, Sendable, Equatable {
    public var played: Bool
    /// Which device marks it (for the listening log).
    public var device: String?

    public init(played: Bool, device: String?) {
        self.played = played
        self.device = device
    }
}

/// One chapter of an episode, in seconds of the original.
public struct EpisodeChapter: Codable, Sendable, Equatable {
    public var title: String
    public var start: Double
    public var end: Double?
    public var image: String?
    public var url: String?

    public init(title: String, start: Double, end: Double?, image: String?, url: String?) {
        (self.title, self.start, self.end, self.image, self.url) = (title, start, end, image, url)
    }
}

/// `GET /api/episodes/{episodeID}/chapters`.
public struct EpisodeChapters: Codable, Sendable, Equatable {
    /// `podcast:chapters`, `id3`, `mp4` or `none`.
    public var source: String
    public var chapters: [EpisodeChapter]

    public init(source: String, chapters: [EpisodeChapter]) {
        self.source = source
        self.chapters = chapters
    }
}

/// One line of a transcript, in seconds of the original.
public struct TranscriptLine: Codable, Sendable, Equatable {
    public var start: Double
    public var end: Double?
    public var speaker: String?
    public var text: String

    public init(start: Double, end: Double?, speaker: String?, text: String) {
        (self.start, self.end, self.speaker, self.text) = (start, end, speaker, text)
    }
}

/// `GET /api/episodes/{episodeID}/transcript`.
public struct EpisodeTranscript: Codable, Sendable, Equatable {
    public var lines: [TranscriptLine]

    public init(lines: [TranscriptLine]) {
        self.lines = lines
    }
}

/// `POST /api/podcasts/opml`: what an import did.
public struct OPMLImportResult: Codable, Sendable, Equatable {
    public var added: Int
    public var alreadySubscribed: Int
    public var podcasts: [PodcastInfo]

    public init(added: Int, alreadySubscribed: Int, podcasts: [PodcastInfo]) {
        self.added = added
        self.alreadySubscribed = alreadySubscribed
        self.podcasts = podcasts
    }
}

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

/// `GET /api/radio/stations` and `GET /api/radio/favourites`.
public struct RadioStationList: Codable, Sendable, Equatable {
    public var stations: [RadioStationInfo]

    public init(stations: [RadioStationInfo]) {
        self.stations = stations
    }
}

/// `GET /api/podcasts/podcastindex`: whether search also asks Podcast Index.
public struct PodcastIndexSettings: Codable, Sendable, Equatable {
    public var configured: Bool
    /// The key (the secret is never shown).
    public var key: String?

    public init(configured: Bool, key: String?) {
        self.configured = configured
        self.key = key
    }
}

/// `PUT /api/podcasts/podcastindex`: the owner's Podcast Index API key and secret.
public struct PodcastIndexCredentialsRequest: Codable, Sendable, Equatable {
    public var key: String
    public var secret: String

    public init(key: String, secret: String) {
        self.key = key
        self.secret = secret
    }
}
