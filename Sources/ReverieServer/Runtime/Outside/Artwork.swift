import Crypto
import Feeds
import Foundation
import ReverieAPI
import SQLKit
import Vapor

/// Pictures from other hosts (podcasts' and episodes' covers, radio stations' icons, LibriVox
/// covers), fetched once through the guarded client and kept in `<data>/cache/artwork` (named by
/// the SHA-256 of their address), so the app shows them from its own address, and again after a
/// restart without asking the host. Only JPEG, PNG, WebP and GIF, at most 3 MB: never SVG or HTML
/// from outside, which could carry script. When the host cannot give one, the answer is a drawn
/// placeholder (200, never kept), so a page shows a picture and logs no error.
struct ArtworkStore: Sendable {
    static let maxBytes = 3 << 20
    static let extensions = ["image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/gif": "gif"]

    /// The folder is kept under this size: the pictures used longest ago go first.
    static let maxStoredBytes = 256 << 20

    let directory: URL
    let client: GuardedHTTPClient
    let recent = Recent<String, Picture>(lifetime: .minutes(60), capacity: 300)
    /// Addresses that gave no picture lately: answered the placeholder at once for ten minutes,
    /// rather than waiting on a dead host for every view of a list.
    let failed = Recent<String, Bool>(lifetime: .minutes(10), capacity: 2000)

    struct Picture: Sendable {
        var type: String
        var data: Data
    }

    /// Our own drawing: a rounded square with a speaker's rings, in the app's colours.
    static let placeholder = Data("""
    <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 120" width="120" height="120">\
    <rect width="120" height="120" rx="18" fill="#2e2950"/>\
    <circle cx="60" cy="60" r="30" fill="none" stroke="#b18cff" stroke-width="5" opacity="0.55"/>\
    <circle cx="60" cy="60" r="17" fill="none" stroke="#b18cff" stroke-width="5"/>\
    <circle cx="60" cy="60" r="6" fill="#ff5fd9"/></svg>
    """.utf8)

    /// The name its picture is kept under (without the extension): the address's SHA-256.
    static func name(of address: String) -> String {
        SHA256.hash(data: Data(address.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The picture at `address`: from memory, from the folder, or fetched and kept.
    func picture(_ address: String) async throws -> Picture {
        if let kept = recent.value(for: address) { return kept }
        let name = Self.name(of: address)
        for (type, ext) in Self.extensions {
            let file = directory.appendingPathComponent("\(name).\(ext)")
            if let data = try? Data(contentsOf: file) {
                // Used now: the last to be let go when the folder is full.
                try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
                let picture = Picture(type: type, data: data)
                recent.store(picture, for: address, readAt: recent.generation)
                return picture
            }
        }
        guard let url = URL(string: address) else { throw OutsideFetchError.badURL(address) }
        let generation = recent.generation
        let answer = try await client.get(url, accept: "image/jpeg, image/png, image/webp, image/gif", maxBytes: Self.maxBytes)
        let type = (answer.headers.first(name: .contentType) ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard let ext = Self.extensions[type] else {
            throw APIError(.unprocessableEntity, code: "not_a_picture", "That address does not give a JPEG, PNG, WebP or GIF picture.")
        }
        let picture = Picture(type: type, data: Data(buffer: answer.body))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let scratch = directory.appendingPathComponent(".\(name)-\(UUID().uuidString)")
        try picture.data.write(to: scratch)
        // Renamed into place whole (another server may be writing the same picture).
        if rename(scratch.path, directory.appendingPathComponent("\(name).\(ext)").path) != 0 {
            try? FileManager.default.removeItem(at: scratch)
        }
        recent.store(picture, for: address, readAt: generation)
        trim()
        return picture
    }

    /// Removes what is kept of the pictures at `addresses`, on disk and in memory (a removed
    /// person's covers that no one else uses); how many files went.
    @discardableResult
    func forget(_ addresses: some Sequence<String>) -> Int {
        var removed = 0
        for address in addresses {
            let name = Self.name(of: address)
            for ext in Self.extensions.values where (try? FileManager.default.removeItem(at: directory.appendingPathComponent("\(name).\(ext)"))) != nil {
                removed += 1
            }
        }
        recent.forgetAll()
        return removed
    }

    /// Lets the pictures used longest ago go until the folder is under three quarters of its cap.
    func trim() {
        let files = FileManager.default
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let listed = try? files.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) else { return }
        var kept = listed.compactMap { url -> (url: URL, size: Int, used: Date)? in
            guard !url.lastPathComponent.hasPrefix("."), let values = try? url.resourceValues(forKeys: Set(keys)) else { return nil }
            return (url, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast)
        }
        var total = kept.reduce(0) { $0 + $1.size }
        guard total > Self.maxStoredBytes else { return }
        kept.sort { $0.used < $1.used }
        for file in kept where total > Self.maxStoredBytes * 3 / 4 {
            try? files.removeItem(at: file.url)
            total -= file.size
        }
    }

    /// `GET /api/artwork?url=…`: the picture, or the drawn placeholder when it cannot be had.
    func answer(_ req: Request) async throws -> Response {
        _ = try req.user
        guard let text = try req.queryString("url", maximumLength: 2000), let address = FeedParser.absoluteURL(text) else {
            throw APIError(.badRequest, code: "invalid_field", "url: the picture's http(s) address.")
        }
        var headers = HTTPHeaders()
        // An address that gave no picture lately is not asked again until ten minutes have passed.
        if failed.value(for: address) == nil {
            do {
                let picture = try await picture(address)
                headers.replaceOrAdd(name: .contentType, value: picture.type)
                headers.replaceOrAdd(name: .cacheControl, value: "private, max-age=86400")
                return Response(status: .ok, headers: headers, body: .init(data: picture.data))
            } catch {
                // Unreachable, refused (a private address), too large or not a picture.
                failed.store(true, for: address, readAt: failed.generation)
            }
        }
        // Drawn here, never kept.
        headers.replaceOrAdd(name: .contentType, value: "image/svg+xml")
        headers.replaceOrAdd(name: .cacheControl, value: "no-store")
        headers.replaceOrAdd(name: "X-Reverie-Artwork", value: "placeholder")
        return Response(status: .ok, headers: headers, body: .init(data: Self.placeholder))
    }
}

/// `GET /api/artwork`.
struct ArtworkController: RouteCollection {
    let store: ArtworkStore

    func boot(routes: any RoutesBuilder) throws {
        routes.get("api", "artwork", use: store.answer)
    }
}

/// The pictures from other hosts a person's rows show: their podcasts' and episodes' covers
/// (followed or downloaded) and their radio stations' icons. Removing a person lets go of the
/// kept ones no one else's rows show.
enum ArtworkUse {
    /// Every picture address the rows of `owner` show.
    static func addresses(shownTo owner: UUID, _ sql: any SQLDatabase) async throws -> Set<String> {
        let covers = try await sql.raw("""
            SELECT p.image AS address FROM podcasts p JOIN podcast_subscriptions s ON s.podcast_id = p.id
              WHERE s.owner_id = \(bind: owner) AND p.image IS NOT NULL
            UNION SELECT e.image FROM podcast_episodes e JOIN podcast_subscriptions s ON s.podcast_id = e.podcast_id
              WHERE s.owner_id = \(bind: owner) AND e.image IS NOT NULL
            UNION SELECT e.image FROM podcast_episodes e JOIN episode_downloads d ON d.episode_id = e.id
              WHERE d.owner_id = \(bind: owner) AND e.image IS NOT NULL
            """).all().map { try $0.decode(column: "address", as: String.self) }
        let stations = try await sql.raw("SELECT station FROM radio_favourites WHERE owner_id = \(bind: owner)").all()
        return Set(covers).union(try icons(stations))
    }

    /// Those of `addresses` that some row still shows.
    static func stillShown(_ addresses: Set<String>, _ sql: any SQLDatabase) async throws -> Set<String> {
        var shown = Set<String>()
        let all = Array(addresses)
        // In slices, under every database's limit on bound values.
        for start in stride(from: 0, to: all.count, by: 500) {
            let slice = SQLList(all[start..<min(all.count, start + 500)].map { SQLBind($0) })
            let rows = try await sql.raw("""
                SELECT image AS address FROM podcasts WHERE image IN (\(slice))
                UNION SELECT image FROM podcast_episodes WHERE image IN (\(slice))
                """).all()
            shown.formUnion(try rows.map { try $0.decode(column: "address", as: String.self) })
        }
        let stations = try await sql.raw("SELECT station FROM radio_favourites").all()
        return shown.union(try icons(stations).intersection(addresses))
    }

    /// The icons of stored radio stations (`RadioStationInfo` as JSON); a row that no longer
    /// decodes shows none.
    private static func icons(_ rows: [any SQLRow]) throws -> Set<String> {
        Set(try rows.compactMap { row in
            let json = try row.decode(column: "station", as: String.self)
            return (try? JSONDecoder().decode(RadioStationInfo.self, from: Data(json.utf8)))?.favicon
        })
    }
}
