import AudioRender
import Foundation
import MediaFormats
import NIOConcurrencyHelpers
import ReverieAPI
import Vapor

/// The job that downloads an episode for a person: the enclosure fetched through the guarded
/// client into `<data>/media/.incoming` (kept between attempts, so a restart or a dropped
/// connection continues with Range where it stopped), capped in size, its own chapters read
/// (ID3 `CHAP` or MP4), then levelled to −16 LUFS (and its long silences shortened, if asked)
/// into `<data>/media/podcasts/<download id>.mp3`.
struct EpisodeDownload: Job {
    static let kind = JobKind.episodeDownload

    /// The person's download row.
    var downloadID: UUID

    struct Services: Sendable {
        let podcasts: Store<any PodcastRepository>
        let client: GuardedHTTPClient
        /// Where its files go (`partialFile`, `file`) and the largest taken.
        let config: ServerConfig
        let threadPool: NIOThreadPool
    }

    static func partialFile(_ id: UUID, _ config: ServerConfig) -> URL {
        config.mediaDirectory(".incoming").appendingPathComponent("episode-\(id.uuidString.lowercased()).part")
    }

    static func file(_ id: UUID, _ config: ServerConfig) -> URL {
        config.mediaDirectory("podcasts").appendingPathComponent("\(id.uuidString.lowercased()).mp3")
    }

    func run(_ job: JobContext, _ services: Services) async throws -> JobOutput {
        let repository = services.podcasts.outside
        guard var download = try await repository.download(downloadID) else { return .none }   // deleted meanwhile
        do {
            try await Self.fetchAndLevel(&download, job: job, services: services)
        } catch is CancellationError {
            throw CancellationError()   // the server is stopping: another worker continues it
        } catch {
            download.status = .failed
            try? await repository.save(download)
            throw error
        }
        try? FileManager.default.removeItem(at: Self.partialFile(downloadID, services.config))
        return .none
    }

    /// Fetches and levels the download's episode, saving each step; `download` keeps what was
    /// done when it throws (the caller saves it as failed).
    static func fetchAndLevel(_ download: inout EpisodeDownloadRecord, job: JobContext, services: Services) async throws {
        let repository = services.podcasts.outside
        let config = services.config
        let id = download.id
        guard let episode = try await repository.episode(download.episodeID) else {
            throw PodcastError.episodeGone
        }
        guard let address = episode.enclosureURL, let url = URL(string: address) else {
            throw PodcastError.noAudio(episode.shownTitle)
        }
        download.status = .downloading
        try await repository.save(download)
        let partial = partialFile(id, config)
        try FileManager.default.createDirectory(at: partial.deletingLastPathComponent(), withIntermediateDirectories: true)
        let lastReport = NIOLockedValueBox(Date.distantPast)
        await job.report(0, "Downloading…")
        _ = try await services.client.download(url, to: partial, maxBytes: config.maxUploadBytes, resuming: true) { received, expected in
            let due = lastReport.withLockedValue { last -> Bool in
                guard Date().timeIntervalSince(last) >= 1 else { return false }
                last = Date()
                return true
            }
            guard due else { return }
            let megabytes = String(format: "%.1f MB", Double(received) / 1_000_000)
            if let expected, expected > 0 {
                await job.report(0.7 * Double(received) / Double(expected), "Downloading… \(megabytes) of \(String(format: "%.1f MB", Double(expected) / 1_000_000))")
            } else {
                await job.report(0.05, "Downloading… \(megabytes)")
            }
        }
        await job.report(0.7, "Levelling the sound…")
        // The original's own chapters, if it has them (the feed's chapters file wins when both do).
        let path = partial.path
        let media = try? await services.threadPool.runIfActive { try MediaFile.parse(path: path) }
        if let chapters = media?.chapters, !chapters.isEmpty {
            let kept = chapters.map { EpisodeChapter(title: $0.title, start: $0.start, end: $0.end, image: nil, url: nil) }
            download.chapters = String(decoding: try JSONEncoder().encode(kept), as: UTF8.self)
        }
        let destination = file(id, config)
        try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        let result: SpokenLevelling.Result
        do {
            result = try await SpokenLevelling().process(partial, trimSilence: download.trimSilence, into: destination)
        } catch let error as AudioRenderError {
            try? FileManager.default.removeItem(at: partial)   // not audio: downloading it again will not help
            throw error.answered(status: .unprocessableEntity, lead: "The episode's file could not be read as audio")
        }
        download.status = .ready
        download.measuredLoudness = result.measured
        download.duration = result.map.processed(result.duration)
        download.timeMap = String(decoding: try JSONEncoder().encode(result.map.kept), as: UTF8.self)
        download.bytes = (try? FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? Int) ?? nil
        try await repository.save(download)
    }

    /// Removes a download's files (the row is the caller's).
    static func removeFiles(_ id: UUID, _ config: ServerConfig) {
        try? FileManager.default.removeItem(at: file(id, config))
        try? FileManager.default.removeItem(at: partialFile(id, config))
    }
}

extension JobKind {
    /// An episode downloaded and levelled for the night.
    static let episodeDownload = JobKind(rawValue: "podcast.download")
}
