import Foundation
import ReverieAPI
import Vapor

/// `GET /manifest.webmanifest[?icon=Lavender]`: the web app's manifest, with the icons of the
/// person's chosen app icon for new installs (the page names it: the browser fetches manifests
/// without the session). An installed app keeps the icon it was installed with.
struct ManifestController: RouteCollection {
    let webDirectory: String

    func boot(routes: any RoutesBuilder) throws {
        routes.get("manifest.webmanifest", use: manifest)
    }

    func manifest(req: Request) async throws -> Response {
        let path = URL(fileURLWithPath: webDirectory).appendingPathComponent("manifest.webmanifest").path
        guard let data = FileManager.default.contents(atPath: path),
              var manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw APIError.notFound("manifest")
        }
        let name = try req.queryString("icon", maximumLength: 20)
        if let name, AppIcon(rawValue: name) == nil {
            throw APIError(.badRequest, code: "invalid_field", "icon: one of \(AppIcon.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        if let icon = name.flatMap(AppIcon.init(rawValue:)), icon != .classic {
            let file = "/icons/icon-\(icon.rawValue.lowercased())"
            manifest["icons"] = [
                ["src": "\(file).svg", "sizes": "any", "type": "image/svg+xml"],
                ["src": "\(file)-192.png", "sizes": "192x192", "type": "image/png"],
                ["src": "\(file)-512.png", "sizes": "512x512", "type": "image/png"],
            ]
        }
        let body = try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        let response = Response(status: .ok, body: .init(data: body))
        response.headers.contentType = HTTPMediaType(type: "application", subType: "manifest+json")
        response.headers.replaceOrAdd(name: .cacheControl, value: "no-cache")
        return response
    }
}
