import Foundation

/// A new piece (`kind` needed) or an edit (`kind` ignored).
public struct BedsidePieceInput: Codable, Sendable, Equatable {
    public var kind: String?
    public var title: String
    public var script: String

    public init(kind: String? = nil, title: String, script: String) {
        self.kind = kind
        self.title = title
        self.script = script
    }
}
