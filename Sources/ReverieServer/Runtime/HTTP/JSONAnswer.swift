import Foundation
import Vapor

extension Response {
    /// `value` (lists, objects, text, numbers, null) as a JSON answer, for protocols whose
    /// answers are not Codable types (gpodder's, Nextcloud's, wallabag's). Anything else is a 500,
    /// never the trap Foundation's writer springs on a value it cannot write.
    static func json(_ value: Any) throws -> Response {
        let data: Data
        if let text = value as? String {
            data = try JSONEncoder().encode(text)
        } else {
            guard JSONSerialization.isValidJSONObject(value) else {
                throw Abort(.internalServerError, reason: "An answer could not be written as JSON.")
            }
            data = try JSONSerialization.data(withJSONObject: value, options: [.withoutEscapingSlashes, .sortedKeys])
        }
        // Plain `application/json` (UTF-8 by its definition): wallabag-client reads a body as JSON only so named.
        return Response(status: .ok, headers: ["Content-Type": "application/json"], body: .init(data: data))
    }
}
