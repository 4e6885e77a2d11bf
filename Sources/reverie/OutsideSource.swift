import Foundation
import ReverieServer

/// A source named on the command line that is an http(s) URL: fetched through the guarded HTTP
/// client (a private address only with `REVERIE_ALLOW_PRIVATE_FETCH=1`), its failure said in a
/// sentence naming the source.
enum OutsideSource {
    /// The body at `source`, or nil when `source` is not an http(s) URL (a file, then).
    static func fetch(_ source: String, maxBytes: Int, accept: String) async throws -> (data: Data, url: URL, contentType: String?)? {
        guard let remote = URL(string: source), ["http", "https"].contains(remote.scheme?.lowercased() ?? "") else { return nil }
        let allow = ["1", "true"].contains((ProcessInfo.processInfo.environment["REVERIE_ALLOW_PRIVATE_FETCH"] ?? "").lowercased())
        do {
            let answer = try await OutsideFetch.data(from: remote, maxBytes: maxBytes, allowPrivate: allow, accept: accept)
            return (answer.data, answer.finalURL, answer.contentType)
        } catch {
            throw CommandFailure(error, about: source)
        }
    }
}
