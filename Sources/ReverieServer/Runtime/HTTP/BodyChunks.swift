import NIOConcurrencyHelpers
import NIOCore
import Vapor

/// A streamed request body (a route registered with `takes: .streamed`), read chunk by chunk with
/// one chunk in flight: the connection is asked for the next chunk only once the last one is
/// handled, so a slow disk slows the sender instead of filling memory.
///
/// Vapor's own reading (`for try await buffer in request.body`) traps under load: its
/// back-pressure delegate calls `preconditionFailure()` when it is told to produce more twice
/// before it hands a chunk on (vapor/vapor#3153), which took the whole server down in the middle
/// of uploads on a busy machine. This reads through `drain`, whose one promise per chunk is the
/// back-pressure, and keeps every promise it makes until it is completed (a promise dropped
/// unfulfilled is a leak NIO reports).
final class BodyChunks: Sendable {
    private struct State {
        /// The promise of the chunk being handled: the connection reads on once it is succeeded.
        var pending: EventLoopPromise<Void>?
        /// Set once the reader has stopped (finished, failed or cancelled): later chunks are refused.
        var stopped = false
    }

    private let state = NIOLockedValueBox(State())
    private let parts: AsyncStream<BodyStreamResult>
    private let continuation: AsyncStream<BodyStreamResult>.Continuation

    init(_ request: Request) {
        (parts, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        let eventLoop = request.eventLoop
        request.body.drain { [self] part in
            switch part {
            case .buffer:
                let promise = eventLoop.makePromise(of: Void.self)
                let taken = state.withLockedValue { state in
                    guard !state.stopped else { return false }
                    state.pending = promise
                    return true
                }
                if taken {
                    continuation.yield(part)
                } else {
                    promise.fail(CancellationError())
                }
                return promise.futureResult
            case .end, .error:
                continuation.yield(part)
                continuation.finish()
                return eventLoop.makeSucceededVoidFuture()
            }
        }
    }

    /// Hands each chunk to `handle` in order and returns at the body's end.
    /// - Throws: what `handle` throws (the rest of the body is then refused), the connection's
    ///   error, or `CancellationError` when the task is cancelled before the end.
    func forEach(_ handle: (ByteBuffer) async throws -> Void) async throws {
        defer { stop() }
        for await part in parts {
            switch part {
            case .buffer(let buffer):
                try await handle(buffer)
                let handled = state.withLockedValue { state in
                    defer { state.pending = nil }
                    return state.pending
                }
                handled?.succeed(())
            case .error(let error):
                throw error
            case .end:
                return
            }
        }
        throw CancellationError()
    }

    private func stop() {
        let unfinished = state.withLockedValue { state in
            state.stopped = true
            defer { state.pending = nil }
            return state.pending
        }
        unfinished?.fail(CancellationError())
        continuation.finish()
    }
}
