import Foundation

/// The app icons a person can pick for new installs: the manifest icon and the favicon.
public enum AppIcon: String, Codable, Sendable, CaseIterable {
    /// The crescent on the night sky. Free.
    case classic = "Classic"
    /// Lavender crescent on Catppuccin's base. Plus.
    case lavender = "Lavender"
    /// A warm sun low over dark water. Plus.
    case sunrise = "Sunrise"

    public var isPremium: Bool { self != .classic }
}
