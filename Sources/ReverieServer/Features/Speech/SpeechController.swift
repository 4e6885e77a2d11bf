import AudioRender
import Foundation
import ReverieAPI
import Speech
import SpokenScript
import Vapor

extension SpeechRenderInfo: Content {}
extension VoiceInfo: Content {}
extension ScriptCheck: Content {}

/// Speaking scripts: `POST /api/speech/renders` starts a render (or finds it in the cache),
/// `GET …/{id}` follows it, and the audio, captions and timeline are served when it is done.
/// `DELETE …/{id}` lets go of it: a person who moved on frees their place at once.
struct SpeechController: RouteCollection {
    /// Renders' rows: the request's, and (`outside`) for a render finishing after its request.
    let speechRenders: Store<any SpeechRenderRepository>
    let media: MediaFiles
    /// The engines, the render cache and the renders running.
    let speech: SpeechJobs
    /// The most characters one render takes.
    let maxCharacters: Int
    /// The most renders one person has running at once.
    let maxConcurrentRenders: Int
    let now: @Sendable () -> Date
    let logger: Logger
    /// How long `…/first` waits for a render's first phrase before answering 409.
    let firstPhraseWait: Duration

    func boot(routes: any RoutesBuilder) throws {
        let speech = routes.grouped("api", "speech")
        speech.get("voices", use: voices)
        speech.post("check", use: check)
        let renders = speech.grouped("renders")
        renders.post(use: create)
        renders.get(":renderID", use: show)
        renders.delete(":renderID", use: letGo)
        renders.get(":renderID", "audio", use: audio)
        renders.get(":renderID", "first", use: first)
        renders.get(":renderID", "live", use: live)
        renders.get(":renderID", "captions.vtt", use: captions)
        renders.get(":renderID", "timeline", use: timeline)
    }

    func voices(req: Request) async throws -> [VoiceInfo] {
        _ = try req.user
        return await speech.engines.voices().map(VoiceInfo.init)
    }

    /// `POST /api/speech/check`: the script read, not spoken: phrases, pauses, the estimated
    /// length at `rate`, and warnings with line and column. For editors that check as one types.
    func check(req: Request) async throws -> ScriptCheck {
        _ = try req.user
        let body = try req.content.decode(ScriptCheckRequest.self)
        let limit = maxCharacters
        guard body.text.count <= limit else {
            throw APIError(.badRequest, code: "script_too_long", "The script has \(body.text.count) characters; one render may have \(limit).")
        }
        let rate = body.rate ?? 1
        guard (0.8...1.2).contains(rate) else { throw SpeechError.invalidRate(rate) }
        let parsed: ParsedScript
        do {
            parsed = try ScriptParser().parse(body.text)
        } catch SpokenScriptError.nothingToSay {
            return ScriptCheck(phrases: 0, pauses: 0, pauseSeconds: 0, estimatedSeconds: 0, hasMarkers: false, warnings: [])
        }
        return ScriptCheck(phrases: parsed.phrases.count, pauses: parsed.segments.count - parsed.phrases.count, pauseSeconds: parsed.totalPauseSeconds,
                           estimatedSeconds: parsed.estimatedSeconds(rate: rate), hasMarkers: parsed.hasMarkers,
                           warnings: parsed.warnings.map { .init(line: $0.line, column: $0.column, message: $0.message) })
    }

    func create(req: Request) async throws -> Response {
        let user = try req.user
        let body = try req.content.decode(SpeechRenderRequest.self)
        let jobs = speech

        let characters = body.text.count
        guard characters <= maxCharacters else {
            throw APIError(.badRequest, code: "script_too_long",
                           "The script has \(characters) characters; one render may have \(maxCharacters). Split it into parts.")
        }
        let parsed = try ScriptParser().parse(body.text)
        let rate = body.rate ?? 1
        guard (0.8...1.2).contains(rate) else { throw SpeechError.invalidRate(rate) }
        guard let format = AudioEncoder.Format(rawValue: body.format ?? "m4a") else {
            throw APIError(.badRequest, code: "invalid_format", "The format must be m4a, opus or mp3.")
        }
        let engine = try await jobs.engines.engine(for: body.voice)

        let request = RenderService.Request(script: body.text, voice: body.voice, rate: rate, format: format)
        let key = jobs.service.key(for: request, engine: engine)
        let warnings = parsed.warnings.map { SpeechRenderInfo.Warning(line: $0.line, column: $0.column, message: $0.message) }
        var render = SpeechRenderRecord(id: UUID(), status: .rendering, cacheKey: key, engine: engine.name, voice: body.voice, rate: rate,
                                        format: format.rawValue, characters: characters,
                                        warnings: String(decoding: try JSONEncoder().encode(warnings), as: UTF8.self),
                                        error: nil, createdAt: nil, finishedAt: nil)
        let made: SpeechRenderRecord
        let cached = jobs.service.cached(key, format: format)
        if let cached {
            render.status = .done
            render.durationMs = cached.durationMs
            render.finishedAt = now()
            made = try await speechRenders.on(req).create(render, ownerID: user.id)
        } else {
            guard jobs.reserve(for: user.id, limit: maxConcurrentRenders) else {
                throw APIError(.tooManyRequests, code: "too_many_renders",
                               "You have \(maxConcurrentRenders) renders running; wait for one to finish.",
                               headers: ["Retry-After": "5"])
            }
            // Kept while it renders, so another server can speak it if this one stops.
            (render.script, render.worker, render.heartbeatAt) = (body.text, jobs.worker, now())
            do {
                made = try await speechRenders.on(req).create(render, ownerID: user.id)
            } catch {
                jobs.release(for: user.id)
                throw error
            }
            jobs.start(request, renderID: made.id, user: user.id, repository: speechRenders.outside,
                       now: now, logger: logger)
        }
        let info = await info(made, jobs: jobs)
        let response = Response(status: cached == nil ? .accepted : .created)
        response.headers.replaceOrAdd(name: .location, value: "/api/speech/renders/\(info.id.uuidString.lowercased())")
        try response.content.encode(info)
        return response
    }

    func show(req: Request) async throws -> SpeechRenderInfo {
        await info(try await render(req), jobs: speech)
    }

    /// What a render let go of while it was still being spoken says.
    static let stoppedReason = "Stopped: nobody is listening to it any more."

    /// `DELETE …/{id}`: the person lets go of a render. While it is still being spoken, their
    /// place among their running renders is given back at once and it fails with
    /// `stoppedReason`; the speaking stops unless someone else waits for the same audio. A render
    /// that already ended is left as it is (its files are shared by content). Always 204.
    func letGo(req: Request) async throws -> HTTPStatus {
        let render = try await self.render(req)
        guard render.status == .rendering else { return .noContent }
        // Spoken here: let go of now. Spoken by another server: its end will not be recorded (the
        // row ends here), though it speaks on until then. Neither: its own end is being recorded.
        if speech.letGo(render.id) || render.worker != speech.worker {
            try await speechRenders.on(req).finish(render.id, durationMs: nil, error: Self.stoppedReason, at: now())
        }
        return .noContent
    }

    func audio(req: Request) async throws -> Response {
        let (render, files, format) = try await finished(req)
        return try await media.serve(files.audio.path, type: format.contentType,
                                       name: "reverie-\(render.id.uuidString.lowercased().prefix(8)).\(format.fileExtension)", for: req)
    }

    /// `GET …/first`: the opening of the render up to the end of its first phrase, as WAV, so a
    /// player can start before the whole is done. While the first phrase is still being spoken
    /// this waits for it (up to `firstPhraseWait`, 30 s at the usual patience).
    func first(req: Request) async throws -> Response {
        let render = try await self.render(req)
        if render.status == .failed {
            throw APIError(.conflict, code: "render_failed", "This render failed: \(render.error ?? "unknown reason"). Start a new one.")
        }
        let service = speech.service
        let key = render.cacheKey
        switch await service.opening(of: key, patience: firstPhraseWait) {
        case let .data(data)?:
            let response = Response(status: .ok, body: .init(data: data))
            response.headers.contentType = HTTPMediaType(type: "audio", subType: "wav")
            response.headers.cacheControl = .init(noStore: true)
            return response
        case let .file(url)?:
            return try await media.serve(url.path, type: "audio/wav", name: nil, for: req)
        case nil:
            if await service.progress(of: key) != nil {
                throw APIError(.conflict, code: "not_ready", "The first phrase is not spoken yet; try again in a moment.", headers: ["Retry-After": "2"])
            }
            throw APIError(.gone, code: "render_expired", "This render has no opening to play: it failed or left the cache. Render the script again.")
        }
    }

    /// `GET …/live`: the whole render as MP3 while it is spoken (`RenderService.liveFile`), sent as
    /// it is made from its first byte and ending where the render does, with no length, like a
    /// radio stream: a player plays it through by itself, so a locked phone hears the whole. The
    /// first bytes are waited for (up to `firstPhraseWait`). Once done, it sends the same MP3, kept,
    /// as a file with Range (or, for a render kept without it, 307 to `…/audio`); a render that
    /// failed or was let go of answers 409. One that fails or is
    /// taken over by another server while it is sent is cut off (an error for the player, not an
    /// end that would count as the piece heard to its end); one let go of just ends.
    func live(req: Request) async throws -> Response {
        var render = try await self.render(req)
        let user = try req.user
        let service = speech.service, key = render.cacheKey, renders = speechRenders.outside
        let deadline = ContinuousClock.now + firstPhraseWait
        var file: URL?
        var rowAsked = ContinuousClock.now
        while render.status == .rendering {
            file = await service.liveFile(of: key)
            if file != nil { break }
            guard ContinuousClock.now < deadline else {
                throw APIError(.conflict, code: "not_ready", "The first phrase is not spoken yet; try again in a moment.", headers: ["Retry-After": "2"])
            }
            try await Task.sleep(for: .milliseconds(30))
            // (Its row: ended or let go of meanwhile? Read at most once a second.)
            if ContinuousClock.now - rowAsked >= .seconds(1) {
                render = try await renders.find(render.id, ownedBy: user) ?? render
                rowAsked = ContinuousClock.now
            }
        }
        // The render may have been let go of meanwhile (and the same words be spoken now for
        // another render, whose file that would be): its row says.
        if file != nil { render = try await renders.find(render.id, ownedBy: user) ?? render }
        switch render.status {
        case .done:
            // The live MP3 it was heard through, kept, with Range: a player that was hearing it
            // and reads on from a byte gets the same bytes it had (the finished file, in its own
            // format, would be other bytes at that offset, or none: an early end). Without one,
            // the finished audio.
            if let kept = service.keptLive(key) { return try await media.serve(kept.path, type: "audio/mpeg", name: nil, for: req) }
            return req.redirect(to: "/api/speech/renders/\(render.id.uuidString.lowercased())/audio", redirectType: .temporary)
        case .failed: throw APIError(.conflict, code: "render_failed", "This render failed: \(render.error ?? "unknown reason"). Start a new one.")
        case .rendering: break
        }
        guard let file, let handle = try? FileHandle(forReadingFrom: file) else {
            throw APIError(.conflict, code: "not_ready", "The render's live audio is not there yet; try again in a moment.", headers: ["Retry-After": "2"])
        }
        var headers = HTTPHeaders()
        headers.replaceOrAdd(name: .contentType, value: "audio/mpeg")
        headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        if req.method == .HEAD {
            try? handle.close()
            return Response(status: .ok, headers: headers)
        }
        let id = render.id, worker = render.worker
        let spokenHere = await service.isCurrent(file, of: key)
        // (Managed: a listener gone, a read failing or the render cut short end the response with
        // the error.)
        return Response(status: .ok, headers: headers, body: .init(managedAsyncStream: { writer in
            defer { try? handle.close() }
            // The file grows while it is the live file of the run speaking the render here, or
            // (spoken by another server) while the row says that server still speaks it, and in
            // either case while the row says it is still being spoken (read again at most once a
            // second). A run let go of, another run of the same words, or the render let go of or
            // taken over by another server is a file that grows no more.
            var rowAsked = ContinuousClock.now
            var grows = true
            while true {
                let bytes = try handle.read(upToCount: 1 << 16) ?? Data()
                if !bytes.isEmpty {
                    try await writer.writeBuffer(ByteBuffer(data: bytes))
                    continue
                }
                // At the end of what is written: wait for more while it grows; once it no longer
                // does, read once more (its last frames may have come meanwhile), then end.
                if !grows { break }
                if spokenHere { grows = await service.isCurrent(file, of: key) }
                if grows, ContinuousClock.now - rowAsked >= .seconds(1) {
                    let row = try? await renders.find(id, ownedBy: user)
                    grows = row?.status == .rendering && (spokenHere || row?.worker == worker)
                    rowAsked = ContinuousClock.now
                }
                if grows { try await Task.sleep(for: .milliseconds(40)) }
            }
            // Whole only when the render ended well: its row says so (written just after the run
            // ends, so it is waited for a while). One its person let go of ends quietly too: they
            // moved on, and their page no longer plays it.
            let patience = ContinuousClock.now + .seconds(10)
            while true {
                let row = try await renders.find(id, ownedBy: user)
                if row?.status == .done || row?.error == Self.stoppedReason { return }
                guard row?.status == .rendering, row?.worker == worker, ContinuousClock.now < patience else { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw SpeechError.synthesisFailed("the render ended before its end: failed, let go of or taken over")
        }))
    }

    func captions(req: Request) async throws -> Response {
        let (_, files, _) = try await finished(req)
        return try await media.serve(files.captions.path, type: "text/vtt; charset=utf-8", name: nil, for: req)
    }

    func timeline(req: Request) async throws -> Response {
        let (_, files, _) = try await finished(req)
        return try await media.serve(files.timeline.path, type: "application/json", name: nil, for: req)
    }

    // MARK: - Helpers

    private func render(_ req: Request) async throws -> SpeechRenderRecord {
        let id = try req.uuidParameter("renderID", naming: "render")
        guard let render = try await speechRenders.on(req).find(id, ownedBy: req.user) else { throw APIError.notFound("render") }
        return render
    }

    /// The render and its cached files; 409 while rendering, 410 when the cache lost them. Checks
    /// only that the audio exists: byte-range requests come often and read nothing else.
    private func finished(_ req: Request) async throws -> (SpeechRenderRecord, (audio: URL, captions: URL, timeline: URL), AudioEncoder.Format) {
        let render = try await self.render(req)
        switch render.status {
        case .done: break
        case .failed: throw APIError(.conflict, code: "render_failed", "This render failed: \(render.error ?? "unknown reason"). Start a new one.")
        case .rendering: throw APIError(.conflict, code: "not_ready", "This render is still running; follow GET /api/speech/renders/{id} until it is done.")
        }
        guard let format = AudioEncoder.Format(rawValue: render.format),
              let files = speech.service.files(render.cacheKey, format: format) else {
            throw APIError(.gone, code: "render_expired", "The audio is no longer in the cache; render the script again.")
        }
        return (render, files, format)
    }

    private func info(_ render: SpeechRenderRecord, jobs: SpeechJobs) async -> SpeechRenderInfo {
        let status = render.status
        let progress: Double = switch status {
        case .done: 1
        case .failed: 0
        case .rendering: await jobs.service.progress(of: render.cacheKey) ?? 0
        }
        let base = "/api/speech/renders/\(render.id.uuidString.lowercased())"
        let done = status == .done
        let opening = status == .failed ? false : await jobs.service.hasOpening(render.cacheKey)
        let warnings = (try? JSONDecoder().decode([SpeechRenderInfo.Warning].self, from: Data(render.warnings.utf8))) ?? []
        return SpeechRenderInfo(id: render.id, status: status, progress: progress, engine: render.engine, voice: render.voice, rate: render.rate,
                                format: render.format, characters: render.characters, durationMs: render.durationMs, warnings: warnings,
                                error: render.error, createdAt: render.createdAt ?? Date(timeIntervalSince1970: 0),
                                audioURL: done ? base + "/audio" : nil, captionsURL: done ? base + "/captions.vtt" : nil,
                                timelineURL: done ? base + "/timeline" : nil, firstPhraseURL: opening ? base + "/first" : nil,
                                liveURL: status == .rendering ? base + "/live" : nil)
    }
}
