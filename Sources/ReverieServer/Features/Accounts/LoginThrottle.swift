import Foundation

/// Slows repeated failed logins, per account and per client address.
///
/// Each key may fail `freeFailures` times; after that every further failure locks the key for
/// a doubling delay (1 s, 2 s, 4 s, … at most `maximumLockout`). A locked key is refused before the
/// password is even checked. Failures are forgotten after `forgetAfter` without one, and an
/// account's count resets when it signs in. Unknown usernames are throttled exactly like real ones,
/// so the answers reveal nothing about which accounts exist.
///
/// State is in memory: a restart forgives everyone, which is acceptable for one server.
public actor LoginThrottle {
    /// A key whose next attempt must wait.
    public struct Lockout: Error, Sendable, Equatable {
        /// Seconds until the key may try again (rounded up, at least 1).
        public var retryAfter: Int
    }

    private struct Record {
        var failures: Int
        var lastFailure: Date
        var lockedUntil: Date?
    }

    private let now: @Sendable () -> Date
    private let accountFreeFailures: Int
    private let addressFreeFailures: Int
    private let maximumLockout: TimeInterval
    private let forgetAfter: TimeInterval
    private var records: [String: Record] = [:]

    public init(now: @escaping @Sendable () -> Date = Date.init, accountFreeFailures: Int = 5,
                addressFreeFailures: Int = 20, maximumLockout: TimeInterval = 900, forgetAfter: TimeInterval = 900) {
        self.now = now
        self.accountFreeFailures = accountFreeFailures
        self.addressFreeFailures = addressFreeFailures
        self.maximumLockout = maximumLockout
        self.forgetAfter = forgetAfter
    }

    /// Throws `Lockout` when either the account or the address must wait.
    public func check(username: String, address: String) throws {
        let time = now()
        var wait: TimeInterval = 0
        for key in [Self.accountKey(username), Self.addressKey(address)] {
            guard let record = current(key, at: time), let until = record.lockedUntil, until > time else { continue }
            wait = max(wait, until.timeIntervalSince(time))
        }
        if wait > 0 { throw Lockout(retryAfter: max(1, Int(wait.rounded(.up)))) }
    }

    /// Records a failed attempt for both keys.
    public func recordFailure(username: String, address: String) {
        let time = now()
        record(Self.accountKey(username), freeFailures: accountFreeFailures, at: time)
        record(Self.addressKey(address), freeFailures: addressFreeFailures, at: time)
        if records.count > 50_000 { prune(at: time) }
    }

    /// Forgets the account's failures after it signed in.
    public func recordSuccess(username: String) {
        records[Self.accountKey(username)] = nil
    }

    // MARK: - Private

    private static func accountKey(_ username: String) -> String { "account:" + username.lowercased() }
    private static func addressKey(_ address: String) -> String { "address:" + address }

    private func current(_ key: String, at time: Date) -> Record? {
        guard let record = records[key] else { return nil }
        if time.timeIntervalSince(record.lastFailure) > forgetAfter, (record.lockedUntil ?? .distantPast) <= time {
            records[key] = nil
            return nil
        }
        return record
    }

    private func record(_ key: String, freeFailures: Int, at time: Date) {
        var record = current(key, at: time) ?? Record(failures: 0, lastFailure: time)
        record.failures += 1
        record.lastFailure = time
        let excess = record.failures - freeFailures
        if excess > 0 {
            let delay = min(maximumLockout, pow(2, Double(min(excess - 1, 30))))
            record.lockedUntil = time.addingTimeInterval(delay)
        }
        records[key] = record
    }

    private func prune(at time: Date) {
        records = records.filter { _, record in
            time.timeIntervalSince(record.lastFailure) <= forgetAfter || (record.lockedUntil ?? .distantPast) > time
        }
    }
}
