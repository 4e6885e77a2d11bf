import AudioRender
import Foundation
import MediaFormats
import SleepLibrary
import SpokenScript
import Vapor

/// The owner's audio for Wind Down items: an upload levelled and kept, a script spoken over the
/// sleep bed, or neither; for the owner's routes and `reverie winddown` alike.
public struct SleepAttachments: Sendable {
    let sleepAudio: SleepAudio
    let store: Store<any SleepAudioRepository>
    /// Files answered from memory, which forget a removed upload.
    let files: FileCache
    /// Where uploads are kept, `<data>/media/winddown`.
    let directory: URL

    /// Gives a Wind Down item the audio in `file` (any format ffprobe reads as MP3, M4A, Ogg or
    /// WAV), levelled to −16 LUFS and kept under `<data>/media/winddown`; replaces what it had.
    /// Used by `reverie winddown attach`, which waits for it.
    @discardableResult
    public func attachUpload(itemID: String, file: URL, originalName: String?) async throws -> SleepAttachment {
        try requireItem(itemID)
        try await check(file)
        return try await levelAndAttach(itemID: itemID, file: file, originalName: originalName)
    }

    /// The upload route's way: `file` is checked now (what is not audio, or too long, is refused
    /// at once), then taken into `<data>/media/winddown` and levelled in the background, the item
    /// `preparing` meanwhile: levelling an hour takes about a minute, longer than a request may
    /// wait on a busy machine. A failure is the item's `failed` state with the reason.
    func receiveUpload(itemID: String, file: URL, originalName: String?) async throws {
        try requireItem(itemID)
        try await check(file)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let incoming = directory.appendingPathComponent(".incoming-\(UUID().uuidString.lowercased())")
        try FileManager.default.moveItem(at: file, to: incoming)
        sleepAudio.recentFiles.forgetAll()
        await sleepAudio.level(itemID: itemID) {
            defer { try? FileManager.default.removeItem(at: incoming) }
            try await levelAndAttach(itemID: itemID, file: incoming, originalName: originalName)
        }
    }

    private func check(_ file: URL) async throws {
        let probe = try await sleepAudio.files.probe(file)
        guard AudioFiles.acceptedContainers.contains(probe.container) else { throw WindDownError.unsupportedContainer(probe.container) }
        // ffprobe takes an MP3's or an MP4's header at its word; our own reader weighs it against
        // the bytes there are (a 2 s MP3 whose header says 10 hours lasts 2 s, and is taken).
        let path = file.path
        let held = await Task.detached { try? MediaFile.parse(path: path).duration }.value
        // (A length that is not a number is no length: the probe's stands.)
        let seconds = held.flatMap { $0.isFinite ? min($0, probe.duration) : nil } ?? probe.duration
        guard seconds <= 4 * 3600 else { throw WindDownError.tooLong(minutes: Int(min(seconds, 1e12) / 60)) }
    }

    private func levelAndAttach(itemID: String, file: URL, originalName: String?) async throws -> SleepAttachment {
        let files = sleepAudio.files
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let name = "\(UUID().uuidString.lowercased()).m4a"
        let destination = directory.appendingPathComponent(name)
        try await files.level(file, into: destination)
        let levelled = try await files.probe(destination)
        let attachment = SleepAttachment(itemID: itemID, source: .upload, file: name, originalName: originalName,
                                         script: nil, durationMs: Int((levelled.duration * 1000).rounded()))
        changed(replacing: try await store.outside.attach(attachment))
        return attachment
    }

    @discardableResult
    func requireItem(_ itemID: String) throws -> SleepItem {
        guard let item = sleepAudio.library.item(itemID) else { throw WindDownError.noSuchItem(itemID) }
        return item
    }

    /// Makes (or finds) an item's audio and returns its length in milliseconds; throws when the
    /// item has none or it cannot be made. For the command line, which waits for the render.
    public func make(itemID: String) async throws -> Int {
        let item = try requireItem(itemID)
        let attachment = try await store.outside.attachment(for: itemID)
        guard let source = sleepAudio.source(for: item, attachment: attachment) else {
            throw WindDownError.comingSoon(item.title)
        }
        return try await sleepAudio.file(for: source).durationMs
    }

    /// Makes the audio of each item in `itemIDs` (every item with audio when nil) that is not made
    /// yet, one after another, for `reverie winddown render`. `progress` hears each item as it
    /// starts (index, count, item) and the phrases spoken of it; returns the items made now and
    /// those already made.
    public func render(_ itemIDs: [String]?, starting: @escaping @Sendable (Int, Int, SleepItem) -> Void = { _, _, _ in },
                       progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> (made: Int, kept: Int) {
        let items = try itemIDs.map { try $0.map(requireItem) } ?? sleepAudio.library.items
        let attachments = try await store.outside.all()
        var sources: [(SleepItem, SleepAudio.Source)] = []
        for item in items {
            guard let source = sleepAudio.source(for: item, attachment: attachments[item.id]) else {
                if itemIDs != nil { throw WindDownError.comingSoon(item.title) }
                continue
            }
            sources.append((item, source))
        }
        var made = 0, kept = 0
        for (index, (item, source)) in sources.enumerated() {
            if case .ready = await sleepAudio.state(of: source).state {
                kept += 1
                continue
            }
            starting(index, sources.count, item)
            // (No live file: a running server may be speaking the same item for a player.)
            _ = try await sleepAudio.file(for: source, progress: progress, live: false)
            made += 1
        }
        return (made, kept)
    }

    /// Takes an item's audio away, the catalog's included: it shows as Coming Soon until the owner
    /// gives it audio or `detach`es the removal.
    public func remove(itemID: String) async throws {
        try requireItem(itemID)
        await sleepAudio.forgetLevelling(itemID: itemID)
        let removal = SleepAttachment(itemID: itemID, source: .removed, file: nil, originalName: nil, script: nil, durationMs: nil)
        changed(replacing: try await store.outside.attach(removal))
    }

    /// Removes what the owner gave an item (audio, or a removal); false when there was nothing.
    public func detach(itemID: String) async throws -> Bool {
        await sleepAudio.forgetLevelling(itemID: itemID)
        guard let removed = try await store.outside.detach(itemID) else { return false }
        changed(replacing: removed)
        return true
    }

    /// After an item's attachment was written: the files recently served for items are looked up
    /// again, and the uploaded file of the attachment replaced or removed is deleted.
    private func changed(replacing old: SleepAttachment?) {
        sleepAudio.recentFiles.forgetAll()
        guard let file = old?.file else { return }
        let path = directory.appendingPathComponent(file).path
        try? FileManager.default.removeItem(atPath: path)
        files.forget(path)
    }

    /// Gives a Wind Down item a script, spoken over the sleep bed (rendering starts at once).
    public func attachScript(itemID: String, script: String) async throws {
        try requireItem(itemID)
        do {
            _ = try ScriptParser().parse(script)
        } catch {
            // Kept as written for the item, like a Bedside piece: what cannot be spoken is unprocessable.
            throw error.answered(status: .unprocessableEntity)
        }
        await sleepAudio.forgetLevelling(itemID: itemID)
        let attachment = SleepAttachment(itemID: itemID, source: .script, file: nil, originalName: nil, script: script, durationMs: nil)
        changed(replacing: try await store.outside.attach(attachment))
        if let item = sleepAudio.library.item(itemID), let source = sleepAudio.source(for: item, attachment: attachment) {
            await sleepAudio.start(source)
        }
    }
}
