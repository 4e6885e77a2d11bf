/// The themes of the Write design, applied to the whole app: the seed's four, free, and two for Plus.
///
/// Raw values are the names the seed gives them and are what is stored in the `theme` setting.
public enum Theme: String, Codable, Sendable, CaseIterable {
    /// The default: dark, OLED-friendly, neon accents.
    case retroFuturistic = "RetroFuturistic"
    case plainLight = "PlainLight"
    case plainDark = "PlainDark"
    /// Catppuccin Mocha with a lavender accent.
    case dirtyDishes = "DirtyDishes"
    /// Plus: deep plum with candle gold.
    case velvetHour = "VelvetHour"
    /// Plus: warm paper and ink, a light theme for long writing sessions.
    case paperMoon = "PaperMoon"

    /// The theme a new user gets.
    public static let `default` = Theme.retroFuturistic

    /// Needs Plus.
    public var isPremium: Bool { self == .velvetHour || self == .paperMoon }
}
