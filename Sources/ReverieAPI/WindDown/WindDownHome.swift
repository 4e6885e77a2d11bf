import Foundation

/// `GET /api/winddown`: the Wind Down screen in the seed's order, with the person's progress.
public struct WindDownHome: Codable, Sendable, Equatable {
    /// One row of the screen: the items of one kind of sleep content.
    public struct Section: Codable, Sendable, Equatable {
        /// The kind, as the catalog writes it (`yogaNidra`, `sleepStory`, …).
        public var type: String
        /// The row's heading (`Yoga Nidra`).
        public var title: String
        /// The kind's accent colour, `#RRGGBB`.
        public var color: String
        /// The icon the web app draws for the kind (`lotus`, `book`, …).
        public var icon: String
        public var items: [WindDownItem]

        public init(type: String, title: String, color: String, icon: String, items: [WindDownItem]) {
            self.type = type
            self.title = title
            self.color = color
            self.icon = icon
            self.items = items
        }
    }

    /// "Ready for Sleep?", "Good Evening" or "Wind Down", for the person's hour.
    public var greeting: String
    /// Featured Tonight, when the catalog has it.
    public var featured: WindDownItem?
    /// Begun and under 95%, most recent first.
    public var continueListening: [WindDownItem]
    public var sections: [Section]

    public init(greeting: String, featured: WindDownItem?, continueListening: [WindDownItem], sections: [Section]) {
        self.greeting = greeting
        self.featured = featured
        self.continueListening = continueListening
        self.sections = sections
    }
}
