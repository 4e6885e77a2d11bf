import Foundation
import Vapor

/// What removing a person clears besides their rows (which the database cascades): the library
/// files no one else uses, and their renders' cached audio unless another render (or the
/// meditation narration) uses the same entry.
struct AccountRemoval: Sendable {
    let library: LibraryStore
    let meditationAudio: MeditationAudio
    let speech: SpeechJobs

    /// Removes a person with every row they own and what was made from it.
    func removeEverything(of id: UUID, repositories: Repositories) async throws {
        let keys = try await repositories.speechRenders.cacheKeys(ownedBy: id)
        let media = try await repositories.library.all(ownedBy: id)
        try await repositories.users.delete(id: id)
        try await library.removeUnused(after: media)
        let kept = await meditationAudio.narrationKeys()
        for key in keys.subtracting(kept) where try await !repositories.speechRenders.isUsed(cacheKey: key) {
            await speech.service.remove(key)
        }
    }
}
