import Foundation
import SQLKit
import Vapor

/// What removing a person clears besides their rows (`PersonalData.tables`): their podcast
/// downloads and the podcasts no one subscribes to any more, the library files no one else uses
/// (with what was made from them), and their renders' cached audio unless another render (or the
/// meditation narration) uses the same entry, and the kept covers and icons only their rows
/// showed. `PersonalData` lists where a person's things are.
struct AccountRemoval: Sendable {
    let users: Store<any UserRepository>
    let speechRenders: Store<any SpeechRenderRepository>
    let podcasts: Store<any PodcastRepository>
    let library: LibraryStore
    let meditationAudio: MeditationAudio
    let speech: SpeechJobs
    let artwork: ArtworkStore
    let config: ServerConfig

    /// Removes a person with every row they own and what was made from it.
    func removeEverything(of id: UUID, _ req: Request) async throws {
        let (renders, podcasts) = (speechRenders.on(req), podcasts.on(req))
        let keys = try await renders.cacheKeys(ownedBy: id)
        let media = try await library.repository.on(req).all(ownedBy: id)
        let downloads = try await podcasts.downloadIDs(ownerID: id)
        let sql = req.db as? any SQLDatabase
        var pictures = Set<String>()
        if let sql { pictures = try await ArtworkUse.addresses(shownTo: id, sql) }
        try await users.on(req).delete(id: id)
        for download in downloads {
            EpisodeDownload.removeFiles(download, config)
            DerivedFiles.remove(madeFrom: "episode-\(download.uuidString)", in: [config.cacheDirectory("renditions")])
        }
        _ = try await podcasts.removeUnsubscribed()
        try await library.removeUnused(after: media)
        let kept = await meditationAudio.narrationKeys()
        for key in keys.subtracting(kept) where try await !renders.isUsed(cacheKey: key) {
            await speech.service.remove(key)
        }
        if let sql, !pictures.isEmpty {
            artwork.forget(pictures.subtracting(try await ArtworkUse.stillShown(pictures, sql)))
        }
    }
}

/// Files made from another (a sleep-timer rendition, a practice speed, a rendered loop), named
/// `<source key>-…` in their cache folders.
enum DerivedFiles {
    /// Removes every file made from the source `key` in `directories`.
    static func remove(madeFrom key: String, in directories: [URL]) {
        for directory in directories {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for name in names where name.hasPrefix(key + "-") {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
            }
        }
    }
}
