import AudioRender
import Foundation
import Playback
import ReverieAPI
import SleepLibrary
import Speech
import SpokenScript
import Vapor

extension WindDownHome: Content {}
extension WindDownItem: Content {}

/// Wind Down: the sleep library with the person's progress, its audio, and the owner's way of
/// giving a Coming Soon item audio of its own.
struct WindDownController: RouteCollection {
    let attachedAudio: Store<any SleepAudioRepository>
    let progress: Store<any ProgressRepository>
    let media: MediaFiles
    let sleepAudio: SleepAudio
    /// The sleep timer's renditions (`?until=`).
    let renditions: Renditions
    /// The owner's audio for items: uploads, scripts, removal.
    let attachments: SleepAttachments
    let now: @Sendable () -> Date
    let library: SleepLibrary
    let maxUploadBytes: Int
    /// How long a live item's first play waits for its first sound before answering 409.
    let firstSoundWait: Duration

    func boot(routes: any RoutesBuilder) throws {
        let windDown = routes.grouped("api", "winddown")
        windDown.get(use: home)
        windDown.get(":id", use: item)
        windDown.get(":id", "audio") { req -> EventLoopFuture<Response> in
            // A player asks for its audio a range at a time: the item's file, recently looked up
            // and kept in memory, is sent from the event loop; anything else takes `audio`.
            if let response = try keptAudio(req) { return req.eventLoop.makeSucceededFuture(response) }
            return req.eventLoop.makeFutureWithTask { try await audio(req: req) }
        }
        windDown.get(":id", "live", "audio", use: liveAudio)
        windDown.on(.PUT, ":id", "audio", takes: .streamed, use: upload)
        windDown.put(":id", "script", use: script)
        windDown.delete(":id", "audio", use: detach)
        windDown.put(":id", "removed", use: remove)
    }

    /// `?timeZone=Europe/Paris` says the person's hour for the greeting (UTC when absent).
    func home(req: Request) async throws -> WindDownHome {
        let user = try req.user
        let zone = try req.queryTimeZone()
        let attachments = try await attachedAudio.on(req).all()
        var described: [String: WindDownItem] = [:]
        for item in library.items { described[item.id] = await describe(item, attachments[item.id], req: req) }
        let places = try await progress.on(req).deciding(prefixed: ProgressController.windDown, ownedBy: user)
        var progress: [SleepProgress] = []
        for (key, event) in places {
            guard let id = ProgressController.windDownID(key), var entry = described[id] else { continue }
            let position = ListeningProgress.position([event], duration: Double(entry.item.duration))
            entry.position = position?.position
            entry.progress = ListeningProgress.fraction(position, duration: Double(entry.item.duration))
            described[id] = entry
            if let position { progress.append(SleepProgress(itemID: id, fraction: entry.progress, updatedAt: position.at)) }
        }
        return WindDownHome(
            greeting: SleepLibrary.greeting(at: now(), in: zone),
            featured: library.featured.flatMap { described[$0.id] },
            continueListening: library.continueListening(progress).compactMap { described[$0.id] },
            sections: SleepContentType.allCases.map { type in
                WindDownHome.Section(type: type.rawValue, title: type.displayName, color: type.color, icon: type.icon,
                        items: library.items(of: type).compactMap { described[$0.id] })
            })
    }

    /// `GET /api/winddown/{id}`: one item with the person's progress.
    func item(req: Request) async throws -> WindDownItem {
        let user = try req.user
        let item = try catalogItem(req)
        var entry = await describe(item, try await attachedAudio.on(req).attachment(for: item.id), req: req)
        let events = try await progress.on(req).places(of: [ItemKey.windDown(item.id).text], ownedBy: user).values.first ?? []
        let position = ListeningProgress.position(events, duration: Double(entry.item.duration))
        entry.position = position?.position
        entry.progress = ListeningProgress.fraction(position, duration: Double(entry.item.duration))
        return entry
    }

    /// `GET /api/winddown/{id}/audio[?until=SECONDS][&level=0–1]`: the audio, with Range. With
    /// `until`, the sleep timer's rendition: the same audio ending at that second, its last 30 s
    /// fading out; an `until` at or past the item's end answers the whole item. With `level`, the
    /// same timeline at that level (to the dB), for a phone that ignores the element's volume.
    func audio(req: Request) async throws -> Response {
        _ = try req.user
        let item = try catalogItem(req)
        let shape = try req.renditionShape(untilIn: 1...(24 * 3600))
        let recent = sleepAudio.recentFiles
        let generation = recent.generation
        let source = sleepAudio.source(for: item, attachment: try await attachedAudio.on(req).attachment(for: item.id))
        let (state, file, detail) = await sleepAudio.state(of: source)
        if await sleepAudio.levellingState(of: item.id).busy {
            throw APIError(.conflict, code: "audio_preparing", "The file for “\(item.title)” is being levelled; try again in a few seconds.",
                           headers: ["Retry-After": "5"])
        }
        guard let file, state == .ready else {
            switch state {
            case .none:
                throw WindDownError.comingSoon(item.title)
            case .failed:
                throw APIError(.conflict, code: "audio_failed", "The audio could not be made: \(detail ?? "unknown error").")
            case .preparing, .speaking, .ready:
                if let source { await sleepAudio.start(source) }
                throw APIError(.conflict, code: "audio_preparing", "The audio for “\(item.title)” is being made; try again in a few seconds.",
                               headers: ["Retry-After": "5"])
            }
        }
        if let rendition = try await renditions.rendition(of: file.url, key: file.key, duration: Double(file.durationMs) / 1000,
                                                          shape: shape) {
            return try await media.serve(rendition.url.path, type: rendition.contentType, name: nil, for: req)
        }
        recent.store(file.url.path, for: item.id, readAt: generation)
        return try await media.serve(file.url.path, type: "audio/mp4", name: nil, for: req)
    }

    /// `GET /api/winddown/{id}/live/audio[?until=SECONDS]`: an item that is spoken on first play,
    /// while it is: a WAV of the whole length, with Range, whose bytes are sent as they are made
    /// (the first within a second or so of the first ask, which starts the speaking). With
    /// `until`, the sleep timer's rendition of it. 409 once it is made and its live file gone
    /// (the item's `/audio` has it), or when it cannot be made.
    func liveAudio(req: Request) async throws -> Response {
        _ = try req.user
        let item = try catalogItem(req)
        let until = try req.queryDouble("until", in: 1...(24 * 3600))
        let source = sleepAudio.source(for: item, attachment: try await attachedAudio.on(req).attachment(for: item.id))
        guard let source, let live = await sleepAudio.live(source) else {
            throw APIError(.notFound, code: "not_live", "“\(item.title)” is not spoken as it plays; play /api/winddown/\(item.id)/audio.")
        }
        let complete = LiveSleepAudio.header(live.url).map { LiveSleepAudio.size(live.url) >= $0.size } ?? false
        if !complete, !live.growing {
            if case .ready = await sleepAudio.state(of: source).state {
                throw APIError(.conflict, code: "audio_made", "“\(item.title)” is made now; play /api/winddown/\(item.id)/audio.")
            }
            await sleepAudio.start(source)
        }
        let audio = sleepAudio
        return try await LiveSleepAudio.response(live.url, until: until, for: req, firstSound: firstSoundWait,
                                                 writer: { await audio.live(source)?.writer },
                                                 reach: { await audio.reach(source, seconds: $0) }) { await audio.live(source)?.growing ?? false }
    }

    /// The whole audio (no `until`) of an item whose file was looked up in the last moment and is
    /// kept in memory, answered on the event loop; nil for everything else.
    private func keptAudio(_ req: Request) throws -> Response? {
        guard req.url.query == nil, let id = req.parameters.get("id"), let path = sleepAudio.recentFiles.value(for: id) else {
            return nil
        }
        _ = try req.user
        return try media.kept(path, type: "audio/mp4", name: nil, for: req)
    }

    /// `PUT /api/winddown/{id}/audio` (owner): the request body is an audio file (MP3, M4A, Ogg
    /// or WAV), checked with ffprobe at once (415 for what is not audio), then levelled to −16
    /// LUFS in the background: 202, the item `preparing` until it is, then `ready` (or `failed`
    /// with the reason). It replaces whatever the item had.
    func upload(req: Request) async throws -> Response {
        try req.owner("gives Wind Down items their audio")
        let item = try catalogItem(req)
        let received = try await media.receive(req, limit: maxUploadBytes)
        defer { try? FileManager.default.removeItem(at: received.file) }
        try await attachments.receiveUpload(itemID: item.id, file: received.file, originalName: received.originalName)
        var entry = try await self.item(req: req)
        entry.audio.originalName = received.originalName
        return try await entry.encodeResponse(status: .accepted, for: req)
    }

    /// `PUT /api/winddown/{id}/script` (owner): a script with pause markers, spoken over the sleep
    /// bed; the item is `preparing` until it is rendered.
    func script(req: Request) async throws -> Response {
        try req.owner("gives Wind Down items their audio")
        let item = try catalogItem(req)
        let body = try req.content.decode(SleepScriptRequest.self)
        try await attachments.attachScript(itemID: item.id, script: body.script)
        return try await self.item(req: req).encodeResponse(status: .accepted, for: req)
    }

    /// `DELETE /api/winddown/{id}/audio` (owner): the item goes back to what the catalog gives it
    /// (the owner's upload, script or removal goes).
    func detach(req: Request) async throws -> WindDownItem {
        try req.owner("gives Wind Down items their audio")
        let item = try catalogItem(req)
        guard try await attachments.detach(itemID: item.id) else {
            throw APIError(.notFound, code: "not_found", "“\(item.title)” has no audio of the owner's to remove.")
        }
        return try await self.item(req: req)
    }

    /// `PUT /api/winddown/{id}/removed` (owner): the item's audio is taken away, the catalog's
    /// too: Coming Soon, until the owner gives it audio or DELETEs `/audio`.
    func remove(req: Request) async throws -> WindDownItem {
        try req.owner("gives Wind Down items their audio")
        let item = try catalogItem(req)
        try await attachments.remove(itemID: item.id)
        return try await self.item(req: req)
    }

    // MARK: -


    private func catalogItem(_ req: Request) throws -> SleepItem {
        let id = req.parameters.get("id") ?? ""
        guard let item = library.item(id) else { throw APIError(.notFound, code: "not_found", "No Wind Down item is called “\(id.prefix(100))”.") }
        return item
    }

    private func describe(_ item: SleepItem, _ attachment: SleepAttachment?, req: Request) async -> WindDownItem {
        let source = sleepAudio.source(for: item, attachment: attachment)
        var (state, file, detail) = await sleepAudio.state(of: source)
        // An upload being levelled (or whose levelling failed) is what the item has now.
        let upload = await sleepAudio.levellingState(of: item.id)
        if upload.busy {
            (state, file, detail) = (.preparing, nil, nil)
        } else if let failure = upload.failure {
            (state, file, detail) = (.failed, nil, "The uploaded file could not be levelled: \(failure)")
        }
        var shown = item
        if let file { shown.duration = Int((Double(file.durationMs) / 1000).rounded()) }
        var made: Double?
        if state == .speaking, let source { made = await sleepAudio.made(source) }
        let kind: String? = switch (attachment?.source, source) {
        case (.upload?, _), (_, _) where upload.busy || upload.failure != nil: "upload"
        case (.script?, _): "script"
        case (.removed?, _): "removed"
        case (nil, .some): "bundled"
        case (nil, nil): nil
        }
        return WindDownItem(item: SleepItemInfo(shown), progress: 0, position: nil, comingSoon: source == nil && !upload.busy && upload.failure == nil,
                            audio: .init(state: state.rawValue, url: state == .ready ? "/api/winddown/\(item.id)/audio" : state == .speaking ? "/api/winddown/\(item.id)/live/audio" : nil, detail: detail,
                                         source: kind, originalName: attachment?.originalName, made: made))
    }
}
