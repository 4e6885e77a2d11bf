import Foundation

/// The kinds of sleep content, in the order Wind Down shows their rows (after Featured Tonight
/// and Continue Listening).
public enum SleepContentType: String, Codable, Sendable, CaseIterable {
    case yogaNidra
    case sleepStory
    case guidedMeditation
    case breathingExercise
    case sleepHypnosis
    case affirmations

    /// The section's name, as the seed writes the type.
    public var displayName: String {
        switch self {
        case .yogaNidra: "Yoga Nidra"
        case .sleepStory: "Sleep Stories"
        case .guidedMeditation: "Guided Meditation"
        case .breathingExercise: "Breathing"
        case .sleepHypnosis: "Sleep Hypnosis"
        case .affirmations: "Affirmations"
        }
    }

    /// The type's accent colour (`#RRGGBB`), exactly as the seed gives it.
    public var color: String {
        switch self {
        case .yogaNidra: "#8B5CF6"          // deep purple
        case .sleepStory: "#6366F1"         // indigo
        case .guidedMeditation: "#A855F7"   // purple
        case .breathingExercise: "#14B8A6"  // teal
        case .sleepHypnosis: "#3B82F6"      // blue
        case .affirmations: "#EC4899"       // pink
        }
    }

    /// Our icon for the type (the web app draws each; the seed's SF Symbols in brackets):
    /// `lotus`, `book`, `sparkles` [sparkles], `lungs` [lungs.fill], `head` [brain.head.profile.fill],
    /// `heart-text` [heart.text.square.fill]. The seed names no symbol for yoga nidra and stories.
    public var icon: String {
        switch self {
        case .yogaNidra: "lotus"
        case .sleepStory: "book"
        case .guidedMeditation: "sparkles"
        case .breathingExercise: "lungs"
        case .sleepHypnosis: "head"
        case .affirmations: "heart-text"
        }
    }
}
