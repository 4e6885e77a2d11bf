import Foundation
import NIOConcurrencyHelpers
import ReverieAPI
import Vapor

/// The job that adds a LibriVox book to a person's library: each section downloaded through the
/// guarded HTTP client, then joined (no re-encoding) into one MP3 whose chapters are the sections,
/// titled as LibriVox titles them and with their readers, so a locked phone plays on from one
/// section into the next.
struct LibriVoxDownload: Job {
    static let kind = JobKind.librivoxDownload

    /// The book's LibriVox id.
    var bookID: Int

    struct Services: Sendable {
        let catalog: LibriVoxCatalog
        let client: GuardedHTTPClient
        let store: LibraryStore
        /// Where the sections are put while they download.
        let incomingDirectory: URL
        /// The largest section taken.
        let maxBytes: Int
    }

    func run(_ job: JobContext, _ services: Services) async throws -> JobOutput {
        await job.report(0, "Asking LibriVox for the book…")
        guard let book = try await services.catalog.book(id: bookID), !book.sections.isEmpty else {
            throw LibriVoxError.bookGone
        }
        let work = services.incomingDirectory.appendingPathComponent("librivox-\(job.id.uuidString)", isDirectory: true)
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let count = book.sections.count
        var parts: [(file: URL, name: String)] = []
        let lastReport = NIOLockedValueBox(Date.distantPast)
        for (index, section) in book.sections.enumerated() {
            guard let url = URL(string: section.listenURL) else { throw OutsideFetchError.badURL(section.listenURL) }
            let file = work.appendingPathComponent(String(format: "%04d.mp3", index + 1))
            let label = "Downloading section \(index + 1) of \(count)"
            await job.report(Double(index) / Double(count + 1), label)
            _ = try await services.client.download(url, to: file, maxBytes: services.maxBytes) { received, expected in
                // A report a second at most: each one writes the row and renews the lease.
                guard let expected, expected > 0 else { return }
                let due = lastReport.withLockedValue { last -> Bool in
                    guard Date().timeIntervalSince(last) >= 1 else { return false }
                    last = Date()
                    return true
                }
                if due { await job.report((Double(index) + Double(received) / Double(expected)) / Double(count + 1), label) }
            }
            parts.append((file, "\(String(format: "%04d", index + 1)) \(section.title).mp3"))
        }
        await job.report(Double(count) / Double(count + 1), "Joining the sections into one book…")
        let description = LibraryStore.BookDescription(
            title: book.title, author: book.authors.isEmpty ? nil : book.authors.joined(separator: ", "),
            chapters: book.sections.map { (title: $0.title, readers: $0.readers) })
        let (item, _) = try await services.store.addBook(parts: parts, in: work, name: book.title, originalName: "LibriVox \(book.id)",
                                                ownerID: job.ownerID, described: description)
        return JobOutput(itemID: item.id)
    }
}

extension JobKind {
    /// A LibriVox book downloaded into the library.
    static let librivoxDownload = JobKind(rawValue: "librivox.download")
}
