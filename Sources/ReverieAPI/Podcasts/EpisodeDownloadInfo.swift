import Foundation

/// An episode's download: the file on the server, levelled, perhaps with silences shortened.
public struct EpisodeDownloadInfo: Codable, Sendable, Equatable {
    /// Where a download is: `queued` → `downloading` → `ready`, or `failed` (asked for again, `queued`).
    public enum Status: String, Codable, Sendable, CaseIterable {
        case queued, downloading, ready, failed
    }

    public var status: Status
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

    public init(status: Status, progress: Double, message: String?, jobID: String?, bytes: Int?, duration: Double?,
                measuredLoudness: Double?, trimmedSilence: Bool, removedSeconds: Double, timeMap: [[Double]]) {
        (self.status, self.progress, self.message, self.jobID, self.bytes) = (status, progress, message, jobID, bytes)
        (self.duration, self.measuredLoudness, self.trimmedSilence, self.removedSeconds, self.timeMap) = (duration, measuredLoudness, trimmedSilence, removedSeconds, timeMap)
    }
}
