import Foundation
@testable import ReverieServer
import Testing

@Suite("Login throttle")
struct LoginThrottleTests {
    @Test("an account may fail five times, then each failure locks it for a doubling delay")
    func accountLockout() async throws {
        let clock = TestNow()
        let throttle = LoginThrottle(now: clock.closure)
        for _ in 0..<5 {
            try await throttle.check(username: "ada", address: "a")
            await throttle.recordFailure(username: "ada", address: "a")
        }
        try await throttle.check(username: "ada", address: "b")          // five free failures
        await throttle.recordFailure(username: "ada", address: "b")      // sixth: 1 s
        await #expect(throws: LoginThrottle.Lockout(retryAfter: 1)) { try await throttle.check(username: "ADA", address: "c") }
        clock.advance(by: 1.5)
        try await throttle.check(username: "ada", address: "c")
        await throttle.recordFailure(username: "ada", address: "c")      // seventh: 2 s
        await #expect(throws: LoginThrottle.Lockout(retryAfter: 2)) { try await throttle.check(username: "ada", address: "d") }
        // Another account from another address is not affected.
        try await throttle.check(username: "grace", address: "e")
    }

    @Test("one address trying many usernames is slowed after twenty failures")
    func addressLockout() async throws {
        let clock = TestNow()
        let throttle = LoginThrottle(now: clock.closure)
        for index in 0..<21 {
            try await throttle.check(username: "user\(index)", address: "10.0.0.9")
            await throttle.recordFailure(username: "user\(index)", address: "10.0.0.9")
        }
        await #expect(throws: LoginThrottle.Lockout.self) { try await throttle.check(username: "fresh", address: "10.0.0.9") }
        try await throttle.check(username: "fresh", address: "10.0.0.10")
    }

    @Test("the delay is capped at fifteen minutes and failures are forgotten after quiet time")
    func capAndForget() async throws {
        let clock = TestNow()
        let throttle = LoginThrottle(now: clock.closure)
        for _ in 0..<40 { await throttle.recordFailure(username: "ada", address: "a") }
        await #expect(throws: LoginThrottle.Lockout(retryAfter: 900)) { try await throttle.check(username: "ada", address: "z") }
        clock.advance(by: 901)
        try await throttle.check(username: "ada", address: "z")
        // Quiet for longer than the window: the next failure is a first failure again.
        await throttle.recordFailure(username: "ada", address: "z")
        try await throttle.check(username: "ada", address: "z")
    }

    @Test("signing in forgives the account")
    func successResets() async throws {
        let throttle = LoginThrottle(now: TestNow().closure)
        for _ in 0..<5 { await throttle.recordFailure(username: "ada", address: "a") }
        await throttle.recordSuccess(username: "ada")
        await throttle.recordFailure(username: "ada", address: "b")
        try await throttle.check(username: "ada", address: "c")
    }
}
