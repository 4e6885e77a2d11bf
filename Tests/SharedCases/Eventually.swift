import Foundation
import Testing

/// (In SharedCases so that every test target waits the same way.)
///
/// Waits for something done in the background (a job, a render, a warm-up) by asking `check`
/// again every `every` until it gives a value, and returns that value.
///
/// The wait is for the condition, not for a guess at how long it takes: a machine with a load
/// of 10 is slow, not wrong. `limit` (seconds of wall time, five minutes unless said) only keeps
/// a test that would wait forever from hanging the suite; reaching it fails the test, naming
/// `what` never happened.
public func eventually<Value>(_ what: String, limit: Duration = .seconds(300), every: Duration = .milliseconds(50),
                       sourceLocation: SourceLocation = #_sourceLocation,
                       _ check: () async throws -> Value?) async throws -> Value {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    while true {
        if let value = try await check() { return value }
        guard clock.now < deadline else {
            Issue.record("\(what): not within \(limit)", sourceLocation: sourceLocation)
            throw EventuallyTimeout(what: what)
        }
        try await Task.sleep(for: every)
    }
}

/// What `eventually` throws when its condition never came true.
public struct EventuallyTimeout: Error, CustomStringConvertible {
    public let what: String
    public var description: String { "\(what): never came true" }
}
