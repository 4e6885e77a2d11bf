import Foundation
import NIOConcurrencyHelpers

/// The long answers (a night stream, a joined stream) being sent to each person now, at most
/// `limit` each: each holds an ffmpeg for as long as its listener reads.
final class StreamsPerPerson: Sendable {
    let limit: Int
    struct Ticket: Sendable {
        let user: UUID
    }

    private let playing = NIOLockedValueBox<[UUID: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// One more for `user`; nil when they have `limit` already.
    func begin(for user: UUID) -> Ticket? {
        playing.withLockedValue { counts in
            guard counts[user, default: 0] < limit else { return nil }
            counts[user, default: 0] += 1
            return Ticket(user: user)
        }
    }

    func end(_ ticket: Ticket) {
        playing.withLockedValue { counts in
            counts[ticket.user, default: 1] -= 1
            if counts[ticket.user] == 0 { counts[ticket.user] = nil }
        }
    }
}
