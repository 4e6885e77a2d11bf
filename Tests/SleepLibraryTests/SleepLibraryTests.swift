import Foundation
import SleepLibrary
import Testing

let library = try! SleepLibrary.bundled()

@Suite("Wind Down catalog")
struct CatalogTests {
    /// The seed's entries (`../shared/seeds/001_…`, Features 3 and 6–9): id, title, narrator, seconds, type.
    static let seedEntries: [(String, String, String, Int, SleepContentType)] = [
        ("yoga_nidra_5min", "Quick Yoga Nidra", "Guided Voice", 300, .yogaNidra),
        ("yoga_nidra_8min", "Extended Yoga Nidra", "Guided Voice", 480, .yogaNidra),
        ("yoga_nidra_10min", "Complete Yoga Nidra", "Guided Voice", 600, .yogaNidra),
        ("breathing_478", "4-7-8 Breath", "Guided Voice", 300, .breathingExercise),
        ("breathing_box", "Box Breathing", "Guided Voice", 420, .breathingExercise),
        ("breathing_deep_sleep", "Deep Sleep Breath", "Guided Voice", 600, .breathingExercise),
        ("breathing_relaxing", "Relaxing Exhale", "Guided Voice", 480, .breathingExercise),
        ("meditation_body_scan", "Body Scan Relaxation", "Dr. Emily Chen", 1200, .guidedMeditation),
        ("meditation_floating", "Floating on Clouds", "Maya Thompson", 900, .guidedMeditation),
        ("meditation_gratitude", "Gratitude for Sleep", "Dr. Emily Chen", 600, .guidedMeditation),
        ("meditation_garden", "Peaceful Garden Walk", "James Rivers", 1080, .guidedMeditation),
        ("hypnosis_deep_sleep", "Deep Sleep Hypnosis", "Michael Waters", 1800, .sleepHypnosis),
        ("hypnosis_letting_go", "Letting Go", "Sarah Moon", 1500, .sleepHypnosis),
        ("hypnosis_dreams", "Peaceful Dreams", "Michael Waters", 1200, .sleepHypnosis),
        ("affirmation_self_love", "Self-Love Affirmations", "Sophie White", 420, .affirmations),
        ("affirmation_peaceful", "Peaceful Sleep Affirmations", "Sophie White", 360, .affirmations),
        ("affirmation_tomorrow", "Tomorrow's Promise", "Alex Kim", 480, .affirmations),
        ("affirmation_releasing", "Releasing Anxiety", "Dr. Emily Chen", 600, .affirmations),
    ]

    @Test("every seed entry, exactly: id, title, narrator, duration and type; every one has a script of its own")
    func seedEntries() throws {
        for (id, title, narrator, duration, type) in Self.seedEntries {
            let item = try #require(library.item(id), "\(id)")
            #expect(item.title == title && item.narrator == narrator && item.duration == duration && item.type == type, "\(id)")
            #expect(!item.isComingSoon, "\(id)")
            if type != .yogaNidra { #expect(item.audio == id, "\(id)") }
        }
        #expect(library.items(of: .yogaNidra).map(\.audio) == ["yoga_nidra_sleep_5min", "yoga_nidra_sleep_8min", "yoga_nidra_sleep_10min"])
    }

    @Test("the seed's descriptions, word for word, where the seed is at hand")
    func seedDescriptions() throws {
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/seeds")
        let name = try? FileManager.default.contentsOfDirectory(atPath: seeds.path).first { $0.hasPrefix("001_") }
        guard let name, let text = try? String(contentsOf: seeds.appendingPathComponent(name), encoding: .utf8) else { return }
        // Each `SleepContent(id: "…", … description: "…", …)` block of the seed.
        var found = 0
        for block in text.components(separatedBy: "SleepContent(").dropFirst() {
            func field(_ key: String) -> String? {
                guard let start = block.range(of: "\(key): \"")?.upperBound, let end = block[start...].firstIndex(of: "\"") else { return nil }
                return String(block[start..<end])
            }
            guard let id = field("id"), let description = field("description") else { continue }
            found += 1
            #expect(library.item(id)?.description == description, "\(id)")
            #expect(library.item(id)?.title == field("title") && library.item(id)?.narrator == field("narrator"), "\(id)")
        }
        #expect(found == 18)
    }

    @Test("twelve sleep stories of ours across Fiction, Nature Journeys, Meditation and ASMR, each with its script")
    func stories() {
        let stories = library.items(of: .sleepStory)
        #expect(stories.count == 12)
        #expect(Set(stories.compactMap(\.category)) == ["Fiction", "Nature Journeys", "Meditation", "ASMR"])
        #expect(stories.allSatisfy { $0.audio == $0.id && !$0.description.isEmpty && !$0.narrator.isEmpty && $0.duration >= 600 })
        #expect(Set(library.items.map(\.id)).count == library.items.count)
        #expect(library.items.count == 30)
    }

    @Test("types carry the seed's colours and our icons, in the screen's order")
    func types() {
        #expect(SleepContentType.allCases.map(\.displayName) == ["Yoga Nidra", "Sleep Stories", "Guided Meditation", "Breathing", "Sleep Hypnosis", "Affirmations"])
        #expect(SleepContentType.allCases.map(\.color) == ["#8B5CF6", "#6366F1", "#A855F7", "#14B8A6", "#3B82F6", "#EC4899"])
        #expect(Set(SleepContentType.allCases.map(\.icon)).count == 6)
        #expect(library.items(of: .breathingExercise).allSatisfy { $0.technique != nil })
    }
}

@Suite("Greeting, featured and Continue Listening")
struct WindDownRulesTests {
    @Test("the greeting changes at 05:00, 17:00 and 21:00", arguments: [
        (4, "Ready for Sleep?"), (5, "Wind Down"), (16, "Wind Down"), (17, "Good Evening"), (20, "Good Evening"), (21, "Ready for Sleep?"), (0, "Ready for Sleep?"),
    ])
    func greeting(hour: Int, expected: String) {
        #expect(SleepLibrary.greeting(hour: hour) == expected)
    }

    @Test("boundaries to the minute, in the person's time zone: 04:59, 05:00, 16:59, 17:00, 20:59, 21:00")
    func greetingInTimeZone() throws {
        let zone = try #require(TimeZone(identifier: "America/New_York"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        func at(_ hour: Int, _ minute: Int) -> Date { calendar.date(from: DateComponents(year: 2026, month: 11, day: 23, hour: hour, minute: minute))! }
        let expected = [(4, 59, "Ready for Sleep?"), (5, 0, "Wind Down"), (16, 59, "Wind Down"), (17, 0, "Good Evening"), (20, 59, "Good Evening"), (21, 0, "Ready for Sleep?")]
        for (hour, minute, greeting) in expected {
            #expect(SleepLibrary.greeting(at: at(hour, minute), in: zone) == greeting, "\(hour):\(minute)")
        }
        // The same moment is evening in New York and the small hours in Berlin.
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        #expect(SleepLibrary.greeting(at: at(17, 30), in: berlin) == "Ready for Sleep?")
    }

    @Test("featured is the complete yoga nidra")
    func featured() {
        #expect(library.featured?.id == "yoga_nidra_10min" && library.featured?.isComingSoon == false)
    }

    @Test("Continue Listening: begun and under 95%, most recent first; nothing when nothing is unfinished")
    func continueListening() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let progress = [
            SleepProgress(itemID: "yoga_nidra_5min", fraction: 0.5, updatedAt: now.addingTimeInterval(-3600)),
            SleepProgress(itemID: "yoga_nidra_8min", fraction: 0.95, updatedAt: now),          // finished
            SleepProgress(itemID: "yoga_nidra_10min", fraction: 0.2, updatedAt: now.addingTimeInterval(-60)),
            SleepProgress(itemID: "meditation_garden", fraction: 0, updatedAt: now),            // never begun
            SleepProgress(itemID: "no_such_item", fraction: 0.4, updatedAt: now),               // not in the catalog
            SleepProgress(itemID: "breathing_box", fraction: 0.949, updatedAt: now.addingTimeInterval(-7200)),
        ]
        #expect(library.continueListening(progress).map(\.id) == ["yoga_nidra_10min", "yoga_nidra_5min", "breathing_box"])
        #expect(library.continueListening([]).isEmpty)
        #expect(library.continueListening([progress[1], progress[3]]).isEmpty)
    }
}
