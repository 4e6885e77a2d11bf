import Foundation

/// The 412 answer to a save made from an older version: the error, what is saved now, and the
/// losing edit kept as a new composition.
public struct CompositionConflict: Codable, Sendable, Equatable {
    public var error: APIErrorBody.Detail
    public var current: Composition
    public var conflictCopy: Composition

    public init(error: APIErrorBody.Detail, current: Composition, conflictCopy: Composition) {
        self.error = error
        self.current = current
        self.conflictCopy = conflictCopy
    }
}
