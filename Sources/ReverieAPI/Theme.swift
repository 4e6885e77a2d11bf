/// The four themes of the Write design, applied to the whole app.
///
/// Raw values are the names the seed gives them and are what is stored in the `theme` setting.
public enum Theme: String, Codable, Sendable, CaseIterable {
    /// The default: dark, OLED-friendly, neon accents.
    case retroFuturistic = "RetroFuturistic"
    case plainLight = "PlainLight"
    case plainDark = "PlainDark"
    /// Catppuccin Mocha with a lavender accent.
    case dirtyDishes = "DirtyDishes"

    /// The theme a new user gets.
    public static let `default` = Theme.retroFuturistic
}
