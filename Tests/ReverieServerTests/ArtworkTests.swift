import Foundation
@testable import ReverieServer
import Testing
import Vapor

@Suite("Pictures from other hosts: fetched once and kept, a drawn placeholder when they cannot be had")
struct ArtworkTests {
    @Test("a cover is fetched once, kept on disk and answered again after a restart without asking its host; an unreachable host, a page that is not a picture and a private address answer the placeholder, never kept")
    func keptAndPlaceholder() async throws {
        try await PodcastAPITests.withSite { site in
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-artwork-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: data) }
            let art = site.url.appendingPathComponent("art.jpg").absoluteString
            let query = "/api/artwork?url=\(art.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? art)"
            try await withTestApp(.sqlite, adjust: { config in
                PodcastAPITests.adjust(site)(&config)
                config.dataDirectory = data.path
            }) { client in
                let owner = try await client.setUpOwner()
                #expect(try await client.send(.GET, query).status == .unauthorized)
                let first = try await client.send(.GET, query, auth: .cookie(owner))
                #expect(first.status == .ok && first.headers.contentType == .jpeg && first.bytes.starts(with: [0xFF, 0xD8]))
                #expect(try await client.send(.GET, query, auth: .cookie(owner)).bytes == first.bytes)
                #expect(site.snapshot.hits["art"] == 1)
                let kept = try FileManager.default.contentsOfDirectory(atPath: client.app.services.config.cacheDirectory("artwork").path)
                #expect(kept.count == 1 && kept[0].hasSuffix(".jpg"))
                for address in ["http://127.0.0.1:9/icon.png", site.url.appendingPathComponent("page.html").absoluteString] {
                    let drawn = try await client.send(.GET, "/api/artwork?url=\(address.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? address)", auth: .cookie(owner))
                    #expect(drawn.status == .ok && drawn.headers.first(name: .contentType) == "image/svg+xml", "\(address)")
                    #expect(drawn.headers.first(name: "X-Reverie-Artwork") == "placeholder" && drawn.headers.first(name: .cacheControl) == "no-store")
                }
                #expect(try FileManager.default.contentsOfDirectory(atPath: client.app.services.config.cacheDirectory("artwork").path).count == 1)
                // An address that gave no picture is answered the placeholder again without asking its host.
                let page = site.url.appendingPathComponent("page.html").absoluteString
                let again = try await client.send(.GET, "/api/artwork?url=\(page.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? page)", auth: .cookie(owner))
                #expect(again.headers.first(name: "X-Reverie-Artwork") == "placeholder" && site.snapshot.hits["page"] == 1)
                #expect(try await client.send(.GET, "/api/artwork", auth: .cookie(owner)).status == .badRequest)
            }
            // A new server on the same data: the kept picture, its host not asked again.
            try await withTestApp(.sqlite, adjust: { config in
                PodcastAPITests.adjust(site)(&config)
                config.dataDirectory = data.path
            }) { client in
                let owner = try await client.setUpOwner()
                #expect(try await client.send(.GET, query, auth: .cookie(owner)).status == .ok)
                #expect(site.snapshot.hits["art"] == 1)
            }
            // Without private addresses allowed (as in production), the same address is refused
            // by the guard: the placeholder, nothing fetched.
            try await withTestApp(.sqlite) { client in
                let owner = try await client.setUpOwner()
                let refused = try await client.send(.GET, "/api/artwork?url=http%3A%2F%2F10.0.0.7%2Fa.jpg", auth: .cookie(owner))
                #expect(refused.status == .ok && refused.headers.first(name: "X-Reverie-Artwork") == "placeholder")
            }
        }
    }
}
