import NIOConcurrencyHelpers
import Vapor

/// The requests being answered, so the server stops only once they are: when it is told to stop,
/// new requests are answered 503 `stopping` at once, and its shutdown waits (up to `patience`) for
/// those under way before the jobs stop and the database closes. A request that reached the
/// database after it had closed crashed the server as it stopped (Fluent's `Request.db` unwraps
/// a database that is gone).
///
/// A streamed answer counts until its handler has returned it; its body goes on being sent after.
final class RequestsUnderWay: AsyncMiddleware, LifecycleHandler {
    private let state = NIOLockedValueBox((running: 0, stopping: false))
    let patience: Duration

    init(patience: Duration = .seconds(10)) {
        self.patience = patience
    }

    /// Requests being answered now.
    var running: Int { state.withLockedValue(\.running) }
    /// Whether the server has been told to stop.
    var stopping: Bool { state.withLockedValue(\.stopping) }

    func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let admitted = state.withLockedValue { state in
            guard !state.stopping else { return false }
            state.running += 1
            return true
        }
        guard admitted else {
            throw APIError(.serviceUnavailable, code: "stopping", "The server is stopping; try again in a moment.")
        }
        defer { state.withLockedValue { $0.running -= 1 } }
        return try await next.respond(to: request)
    }

    /// Takes no more requests and waits for those under way (the first handler to stop: it is
    /// registered last).
    func shutdownAsync(_ application: Application) async {
        state.withLockedValue { $0.stopping = true }
        let deadline = ContinuousClock.now + patience
        while running > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if running > 0 { application.logger.warning("Stopping with \(running) requests still being answered.") }
    }
}
