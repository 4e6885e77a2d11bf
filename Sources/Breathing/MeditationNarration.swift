import Foundation

/// The words spoken for each narration cue of the manifest, as scripts with pause markers, in
/// our own words. The server renders them through the speech engine.
public enum MeditationNarration {
    /// Audio file (the manifest's name) → script.
    public static func bundled() throws -> [String: String] {
        guard let url = Bundle.module.url(forResource: "narration", withExtension: "json") else {
            throw ManifestError.unreadable("narration.json is missing from the Breathing module's resources")
        }
        return try JSONDecoder().decode([String: String].self, from: Data(contentsOf: url))
    }
}
