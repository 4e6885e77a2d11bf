@testable import Breathing
import Foundation
import Testing

@Suite("Meditation manifest")
struct ManifestTests {
    @Test("the bundled manifest is valid and offers basic-breathing for 5, 10 and 20 minutes")
    func bundled() throws {
        let manifest = try MeditationManifest.bundled()
        #expect(manifest.problems() == [])
        for minutes in [5, 10, 20] {
            let variant = try manifest.variant(session: "basic-breathing", minutes: minutes)
            #expect(variant.totalSeconds == minutes * 60)
            #expect(variant.phases.map(\.type) == [.intro, .breathing, .closing])
        }
        for file in ["sessions/basic-breathing/intro-welcome", "sessions/basic-breathing/closing", "shared/bell", "shared/silence-1s"] {
            #expect(manifest.audioFiles.contains(file))
        }
    }

    @Test("an unknown session or a missing length is named")
    func lookups() throws {
        let manifest = try MeditationManifest.bundled()
        #expect(throws: ManifestError.unknownSession("yoga")) { try manifest.variant(session: "yoga", minutes: 5) }
        #expect(throws: ManifestError.missingVariant(path: "sessions[0].variants", session: "basic-breathing", minutes: 7, available: [5, 10, 20])) {
            try manifest.variant(session: "basic-breathing", minutes: 7)
        }
        #expect(ManifestError.unknownSession("yoga").description.contains("“yoga”"))
    }

    /// A manifest edited by a test, starting from the bundled one.
    static func broken(_ edit: (inout MeditationManifest) -> Void) throws -> [String] {
        var manifest = try MeditationManifest.bundled()
        edit(&manifest)
        return manifest.problems().map(\.description)
    }

    @Test("the validator names the path of each bad field")
    func validator() throws {
        let late = try Self.broken { $0.sessions[0].variants[0].phases[0].fixedCues[0].atSeconds = 40 }
        #expect(late == ["sessions[0].variants[0].phases[0].fixedCues[0].atSeconds: 40 s is outside its 40-second phase"])

        let overlapping = try Self.broken { $0.sessions[0].variants[1].phases[1].interjectionWindows![1].earliestSeconds = 150 }
        #expect(overlapping == ["sessions[0].variants[1].phases[1].interjectionWindows[1]: overlaps interjectionWindows[0]"])

        let reversed = try Self.broken { $0.sessions[0].variants[2].phases[1].interjectionWindows![0].latestSeconds = 100 }
        #expect(reversed == ["sessions[0].variants[2].phases[1].interjectionWindows[0]: earliestSeconds 180 is after latestSeconds 100"])

        let short = try Self.broken { $0.sessions[0].variants[0].phases[1].durationSeconds = 200 }
        #expect(short == ["sessions[0].variants[0].phases: last 280 s in all, not 300 s"])

        let twice = try Self.broken { $0.sessions[0].variants[1].durationMinutes = 5 }
        #expect(twice.contains("sessions[0].variants[1].durationMinutes: another variant also lasts 5 minutes"))

        let noPool = try Self.broken { $0.sessions[0].variants[1].phases[1].interjectionWindows![0].audioPool = [] }
        #expect(noPool == ["sessions[0].variants[1].phases[1].interjectionWindows[0].audioPool: needs at least one audio file, none empty"])

        let noBell = try Self.broken { $0.shared.bell = "" }
        #expect(noBell == ["shared.bell: names no audio file"])
    }

    @Test("JSON with a missing or mistyped field is refused with its path")
    func decoding() {
        let missing = Data(#"{"sessions":[{"id":"a","name":"A","description":"","variants":[{"durationMinutes":5}]}],"shared":{"bell":"b","silence":"s"}}"#.utf8)
        #expect(throws: ManifestError.unreadable("sessions[0].variants[0].phases: missing")) { try MeditationManifest.decode(missing) }
        let mistyped = Data(#"{"sessions":[],"shared":{"bell":3,"silence":"s"}}"#.utf8)
        #expect { try MeditationManifest.decode(mistyped) } throws: { error in
            (error as? ManifestError).map { "\($0)".contains("shared.bell") } ?? false
        }
        #expect(throws: ManifestError.self) { try MeditationManifest.decode(Data("not json".utf8)) }
    }
}

@Suite("Meditation narration")
struct NarrationTests {
    @Test("every narration cue in the manifest has words to speak, and the welcome and closing are 20–40 s of speech")
    func coverage() throws {
        let manifest = try MeditationManifest.bundled()
        let narration = try MeditationNarration.bundled()
        let spoken = manifest.audioFiles.filter { !$0.hasPrefix("shared/") }
        #expect(Set(spoken) == Set(narration.keys))
        for file in ["sessions/basic-breathing/intro-welcome", "sessions/basic-breathing/closing"] {
            let text = try #require(narration[file])
            // About 2.5 words a second for calm speech, plus the written pauses.
            let words = text.replacing(/\([0-9.]+[sm]\)/, with: "").split(whereSeparator: \.isWhitespace).count
            let pauses = text.matches(of: /\(([0-9.]+)s\)/).compactMap { Double($0.1) }.reduce(0, +)
            let estimate = Double(words) / 2.5 + pauses
            #expect((20...40).contains(estimate), "\(file): about \(estimate) s")
        }
    }
}
