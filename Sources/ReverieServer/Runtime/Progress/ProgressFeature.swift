import Bedside
import Foundation
import SleepLibrary
import Vapor

/// Listening progress: the one log every player writes to, and each item's place read from it.
struct ProgressFeature: Feature {
    let routes: [any RouteCollection]

    /// - Parameter afterPlayed: what follows a played mark elsewhere (a podcast's download removed once played).
    init(progress: Store<any ProgressRepository>, afterPlayed: @escaping @Sendable (_ items: [String], _ req: Request) async throws -> Void,
         library: SleepLibrary, bedside: BedsideLibrary, now: @escaping @Sendable () -> Date) {
        routes = [ProgressController(progress: progress, now: now, afterPlayed: afterPlayed, library: library, bedside: bedside)]
    }
}
