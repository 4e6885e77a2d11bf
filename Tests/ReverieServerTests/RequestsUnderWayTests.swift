import NIOConcurrencyHelpers
@testable import ReverieServer
import Testing
import Vapor

@Suite("Stopping: the requests under way are answered before the database closes")
struct RequestsUnderWayTests {
    /// Answers once its gate opens.
    struct Gated: AsyncResponder {
        let gate: AsyncStream<Void>
        func respond(to request: Request) async throws -> Response {
            for await _ in gate { break }
            return Response(status: .ok)
        }
    }

    /// Waits (up to a minute) until `condition` holds.
    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else { Issue.record("never came true"); return }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test("a request being answered when the server is told to stop is answered first; one that comes after is 503 stopping at once")
    func answeredFirst() async throws {
        try await withScratchApp { _, app in
            let underWay = RequestsUnderWay(patience: .seconds(120))
            let (gate, open) = AsyncStream<Void>.makeStream()
            let answering = Task {
                try await underWay.respond(to: Request(application: app, on: app.eventLoopGroup.any()), chainingTo: Gated(gate: gate))
            }
            try await Self.waitUntil { underWay.running == 1 }
            let stopped = NIOLockedValueBox(false)
            let stopping = Task {
                await underWay.shutdownAsync(app)
                stopped.withLockedValue { $0 = true }
            }
            try await Self.waitUntil { underWay.stopping }
            // A request now is refused at once, and the one under way still holds up the stop.
            await #expect(throws: APIError.self) {
                try await underWay.respond(to: Request(application: app, on: app.eventLoopGroup.any()), chainingTo: Gated(gate: AsyncStream { $0.finish() }))
            }
            #expect(!stopped.withLockedValue { $0 } && underWay.running == 1)
            open.yield()
            #expect(try await answering.value.status == .ok)
            await stopping.value
            #expect(stopped.withLockedValue { $0 } && underWay.running == 0)
        }
    }
}
