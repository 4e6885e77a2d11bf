import Foundation
import ReverieAPI

/// A person's download of an episode as the `episode_downloads` table holds it (the file is
/// `<data>/media/podcasts/<id>.mp3`, levelled to −16 LUFS): what `PodcastRepository` answers, a
/// value that knows nothing of the database (see `EpisodeDownloadModel` for the row it is read from).
public struct EpisodeDownloadRecord: Sendable, Equatable {
    public var id: UUID
    public var episodeID: UUID
    /// `queued`, `downloading`, `ready` or `failed`.
    public var status: EpisodeDownloadInfo.Status
    /// The job that downloads it.
    public var jobID: UUID?
    public var trimSilence: Bool
    /// The size of the levelled file, in bytes.
    public var bytes: Int?
    /// The length of the levelled file, in seconds.
    public var duration: Double?
    /// The original's loudness, in LUFS.
    public var measuredLoudness: Double?
    /// `[[start, end], …]` of the original kept, JSON; `[]` when nothing was cut.
    public var timeMap: String
    /// Chapters the original file carried, `[EpisodeChapter]` JSON in the original's seconds;
    /// nil when it had none.
    public var chapters: String?
    /// When it was asked for; nil only before it is written.
    public var createdAt: Date?

    /// A download just asked for: queued, nothing cut yet.
    init(id: UUID = UUID(), episodeID: UUID, trimSilence: Bool) {
        self.init(id: id, episodeID: episodeID, status: .queued, jobID: nil, trimSilence: trimSilence, bytes: nil, duration: nil,
                  measuredLoudness: nil, timeMap: "[]", chapters: nil, createdAt: nil)
    }

    init(id: UUID, episodeID: UUID, status: EpisodeDownloadInfo.Status, jobID: UUID?, trimSilence: Bool, bytes: Int?, duration: Double?,
         measuredLoudness: Double?, timeMap: String, chapters: String?, createdAt: Date?) {
        (self.id, self.episodeID, self.status, self.jobID, self.trimSilence) = (id, episodeID, status, jobID, trimSilence)
        (self.bytes, self.duration, self.measuredLoudness, self.timeMap, self.chapters, self.createdAt) = (bytes, duration, measuredLoudness, timeMap, chapters, createdAt)
    }
}
