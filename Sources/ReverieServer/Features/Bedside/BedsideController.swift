import AudioRender
import Bedside
import Foundation
import ReverieAPI
import SpokenScript
import Vapor

extension BedsidePieceInfo: Content {}
extension BedsidePieces: Content {}
extension WakeGreetingInfo: Content {}

/// Bedside's meditations and poems: the presets, the person's own (My Content: create, edit,
/// delete, duplicate), and the next random piece for the Leaf/Masks button.
struct BedsideController: RouteCollection {
    let settings: Store<any SettingsRepository>
    let bedsidePieces: Store<any BedsidePieceRepository>
    let media: MediaFiles
    /// Room sounds and the alarm chime, synthesized once.
    let sounds: SynthesizedAudio
    /// A sound at a level (`?level=`): its rendition, made from the kept file by ffmpeg in moments.
    let renditions: Renditions
    let now: @Sendable () -> Date
    static let maximumTitle = 200
    static let maximumScript = 100_000

    let library: BedsideLibrary

    func boot(routes: any RoutesBuilder) throws {
        let pieces = routes.grouped("api", "bedside", "pieces")
        pieces.get(use: list)
        pieces.post(use: create)
        pieces.get(":pieceID", use: show)
        pieces.put(":pieceID", use: update)
        pieces.delete(":pieceID", use: delete)
        pieces.post(":pieceID", "duplicate", use: duplicate)
        routes.post("api", "bedside", "next", use: next)
        routes.get("api", "bedside", "sounds", ":sound", use: sound)
        routes.get("api", "bedside", "greeting", use: greeting)
    }

    /// `GET /api/bedside/greeting?timeZone=`: the wake greeting's words for now in the person's
    /// time zone (the time as their Bedside clock shows it, the day, the day's kind sentence).
    func greeting(req: Request) async throws -> WakeGreetingInfo {
        let user = try req.user
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try req.queryTimeZone()
        calendar.locale = Locale(identifier: "en_US_POSIX")
        let twentyFourHour = SettingsController.bedside(from: try await settings.on(req).all(ownedBy: user)).clock24 ?? false
        return WakeGreetingInfo(text: WakeGreeting.text(at: now(), calendar: calendar, twentyFourHour: twentyFourHour))
    }

    /// `GET /api/bedside/sounds/{rain|ocean|forest|brown|silence|chime}[?level=0–1]`: a room's
    /// sound, a minute that loops without a seam, or the alarm's chime (rising over a minute, then
    /// a minute at full), synthesized on first use and kept; with Range. With `level`, the sound at
    /// that level (to the dB): the room volume where the phone ignores the element's (an iPhone).
    func sound(req: Request) async throws -> Response {
        _ = try req.user
        let name = req.parameters.get("sound") ?? ""
        let shape = Renditions.Shape(level: try req.queryDouble("level", in: 0...1))
        let make: @Sendable () -> AudioBuffer
        if name == "chime" {
            make = { AlarmChime.render(rise: 60, hold: 60, sampleRate: 22050) }
        } else if let room = RoomSound(rawValue: name) {
            make = { room.render(seconds: 60, sampleRate: 22050) }
        } else {
            throw APIError(.notFound, code: "not_found", "No Bedside sound is called “\(name.prefix(40))”: rain, ocean, forest, brown, silence or chime.")
        }
        let file = try await sounds.file("\(name)-v1.m4a", make: make)
        if let rendition = try await renditions.rendition(of: file.url, key: "bedside-\(name)-v1", duration: Double(file.durationMs) / 1000,
                                                          shape: shape) {
            return try await media.serve(rendition.url.path, type: rendition.contentType, name: nil, for: req)
        }
        return try await media.serve(file.url.path, type: AudioEncoder.Format.m4a.contentType, name: nil, for: req)
    }

    /// `GET /api/bedside/pieces?kind=meditation|poem`: the presets and the person's own.
    func list(req: Request) async throws -> BedsidePieces {
        let user = try req.user
        let kind = try Self.kind(try req.queryString("kind", maximumLength: 20) ?? "")
        let mine = try await ownPieces(kind, of: user, req)
        return BedsidePieces(presets: library.presets(kind).map(Self.info), mine: mine.map(Self.info))
    }

    func show(req: Request) async throws -> BedsidePieceInfo {
        let user = try req.user
        switch try piece(req) {
        case let .preset(preset): return Self.info(preset)
        case let .own(id):
            guard let own = try await bedsidePieces.on(req).find(id, ownedBy: user) else { throw APIError.notFound("piece") }
            return Self.info(own)
        }
    }

    func create(req: Request) async throws -> Response {
        let user = try req.user
        let input = try req.content.decode(BedsidePieceInput.self)
        let kind = try Self.kind(input.kind ?? "")
        let (title, script) = try Self.validated(input)
        let created = try await bedsidePieces.on(req).create(kind: kind.rawValue, title: title, script: script, ownedBy: user)
        return try await Self.info(created).encodeResponse(status: .created, for: req)
    }

    func update(req: Request) async throws -> BedsidePieceInfo {
        let user = try req.user
        let id = try ownID(req, doing: "edited")
        let (title, script) = try Self.validated(try req.content.decode(BedsidePieceInput.self))
        guard let edited = try await bedsidePieces.on(req).update(id, title: title, script: script, ownedBy: user) else {
            throw APIError.notFound("piece")
        }
        return Self.info(edited)
    }

    /// Deleting the last of a kind is allowed: the default piece comes back the next time the list is read.
    func delete(req: Request) async throws -> HTTPStatus {
        let user = try req.user
        let id = try ownID(req, doing: "deleted")
        guard try await bedsidePieces.on(req).delete(id, ownedBy: user) else { throw APIError.notFound("piece") }
        return .noContent
    }

    /// A copy of a preset or of the person's own piece, titled "… (Copy)", in My Content.
    func duplicate(req: Request) async throws -> Response {
        let user = try req.user
        let (kind, title, script): (String, String, String)
        switch try piece(req) {
        case let .preset(preset): (kind, title, script) = (preset.kind.rawValue, preset.title, preset.script)
        case let .own(id):
            guard let own = try await bedsidePieces.on(req).find(id, ownedBy: user) else { throw APIError.notFound("piece") }
            (kind, title, script) = (own.kind, own.title, own.script)
        }
        let copyTitle = String((title + " (Copy)").suffix(Self.maximumTitle))
        let copy = try await bedsidePieces.on(req).create(kind: kind, title: copyTitle, script: script, ownedBy: user)
        return try await Self.info(copy).encodeResponse(status: .created, for: req)
    }

    /// `POST /api/bedside/next {"kind"}`: a random piece from the presets and the person's own,
    /// with no repeat until every piece of that kind has played (kept per person, across devices).
    func next(req: Request) async throws -> BedsidePieceInfo {
        let user = try req.user
        let kind = try Self.kind(try req.content.decode(BedsideNextRequest.self).kind)
        let mine = try await ownPieces(kind, of: user, req)
        let key = "bedside.played.\(kind.rawValue)"
        let stored = settings.on(req)
        let played = try await stored.all(ownedBy: user)[key].flatMap { try? JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? []
        let presets = library.presets(kind)
        let pool = presets.map(\.id) + mine.map { $0.id.uuidString.lowercased() }
        var random = SystemRandomNumberGenerator()
        guard let (id, history) = ContentPool.next(from: pool, played: played, using: &random) else { throw APIError.notFound("piece") }
        try await stored.save([key: String(decoding: try JSONEncoder().encode(history), as: UTF8.self)], ownedBy: user)
        if let preset = presets.first(where: { $0.id == id }) { return Self.info(preset) }
        guard let own = mine.first(where: { $0.id.uuidString.lowercased() == id }) else { throw APIError.notFound("piece") }
        return Self.info(own)
    }

    // MARK: - Helpers

    private enum PieceID {
        case preset(BedsidePiece)
        case own(UUID)
    }

    private func piece(_ req: Request) throws -> PieceID {
        let text = req.parameters.get("pieceID") ?? ""
        if let id = UUID(uuidString: text) { return .own(id) }
        guard let preset = library.preset(text) else { throw APIError.notFound("piece") }
        return .preset(preset)
    }

    private func ownID(_ req: Request, doing what: String) throws -> UUID {
        switch try piece(req) {
        case .preset:
            throw APIError(.forbidden, code: "preset_read_only", "Presets cannot be \(what); duplicate it to have a copy of your own.")
        case let .own(id):
            return id
        }
    }

    /// The person's own pieces of a kind; when there are none, the default piece comes back first.
    private func ownPieces(_ kind: BedsidePiece.Kind, of user: AuthenticatedUser, _ req: Request) async throws -> [BedsidePieceRecord] {
        let repository = bedsidePieces.on(req)
        let pieces = try await repository.all(kind: kind.rawValue, ownedBy: user)
        guard pieces.isEmpty else { return pieces }
        let fallback = kind == .meditation ? library.defaultMeditation : library.defaultPoem
        return [try await repository.create(kind: kind.rawValue, title: fallback.title, script: fallback.script, ownedBy: user)]
    }

    static func kind(_ text: String) throws -> BedsidePiece.Kind {
        guard let kind = BedsidePiece.Kind(rawValue: text) else {
            throw APIError(.badRequest, code: "invalid_field", "kind: meditation or poem.")
        }
        return kind
    }

    /// A title (the script's first phrase when none is given) and a script the reader can speak.
    static func validated(_ input: BedsidePieceInput) throws -> (title: String, script: String) {
        guard input.script.count <= maximumScript else {
            throw APIError(.badRequest, code: "invalid_field", "script: at most \(maximumScript) characters.")
        }
        let parsed: ParsedScript
        do {
            parsed = try ScriptParser().parse(input.script)
        } catch {
            // A piece is kept as written, so what cannot be spoken is unprocessable, not malformed.
            throw error.answered(status: .unprocessableEntity)
        }
        var title = input.title.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: " ")
        if title.isEmpty { title = parsed.phrases.first.map { String($0.text.prefix(80)) } ?? "Untitled" }
        guard title.count <= maximumTitle else {
            throw APIError(.badRequest, code: "invalid_field", "title: at most \(maximumTitle) characters.")
        }
        return (title, input.script)
    }

    static func info(_ preset: BedsidePiece) -> BedsidePieceInfo {
        BedsidePieceInfo(id: preset.id, kind: preset.kind.rawValue, title: preset.title, author: preset.author, script: preset.script,
                         estimatedSeconds: preset.estimatedSeconds, isPreset: true, warnings: [], createdAt: nil, updatedAt: nil)
    }

    static func info(_ own: BedsidePieceRecord) -> BedsidePieceInfo {
        let parsed = try? ScriptParser().parse(own.script)
        let author = parsed.flatMap(BedsidePiece.author(of:))
        return BedsidePieceInfo(id: own.id.uuidString.lowercased(), kind: own.kind, title: own.title, author: author, script: own.script,
                                estimatedSeconds: parsed?.estimatedSeconds() ?? 0, isPreset: false,
                                warnings: parsed?.warnings.map(\.description) ?? [], createdAt: own.createdAt, updatedAt: own.updatedAt)
    }
}
