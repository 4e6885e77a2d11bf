import Foundation

/// A user's settings. Every field is optional in an update; absent fields are left as they are.
public struct UserSettings: Codable, Sendable, Equatable {
    public var theme: Theme?
    /// The icon for new installs (the manifest's and the favicon).
    public var icon: AppIcon?
    /// Bedside's settings; in a PATCH, only the fields present change.
    public var bedside: BedsideSettings?
    public init(theme: Theme? = nil, icon: AppIcon? = nil, bedside: BedsideSettings? = nil) {
        self.theme = theme
        self.icon = icon
        self.bedside = bedside
    }
}
