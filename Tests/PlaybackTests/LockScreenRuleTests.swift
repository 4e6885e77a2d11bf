import Foundation
import Playback
import SharedCases
import Testing

/// The lock screen while music and speech play side by side: the seed's checklist, as sequences
/// shared with the web player (`Tests/Shared/lock-screen-cases.json`), and every combination.
@Suite("Lock screen with two players")
struct LockScreenRuleTests {
    struct Step: Decodable {
        var music: String?
        var speech: String?
        var press: Bool?
        var musicPlays: Bool?
        var speechPlays: Bool?
        var shows: String
    }

    struct Case: Decodable, CustomTestStringConvertible, Sendable {
        let name: String
        let steps: [Step]
        var testDescription: String { name }
    }

    struct File: Decodable {
        let cases: [Case]
    }

    static let cases: [Case] = (try? SharedCases.load("lock-screen-cases.json", as: File.self))?.cases ?? []

    static func player(_ name: String?) -> LockScreenRule.Player {
        switch name {
        case "playing": .playing
        case "paused": .paused
        default: .empty
        }
    }

    @Test("the shared cases file is there and has the seed's checklist")
    func casesLoad() {
        #expect(Self.cases.count >= 10)
        #expect(Self.cases.contains { $0.name.hasPrefix("Tap AirPods while both playing") })
    }

    @Test("each checklist sequence", arguments: cases)
    func sequence(_ testCase: Case) {
        var music = LockScreenRule.Player.empty, speech = LockScreenRule.Player.empty
        var flags = LockScreenRule.Flags()
        for (index, step) in testCase.steps.enumerated() {
            if step.press == true {
                let after = LockScreenRule.togglePress(music: music, speech: speech, flags: flags)
                #expect(after.music == step.musicPlays && after.speech == step.speechPlays, "step \(index + 1)")
                music.isPlaying = after.music && music.isLoaded
                speech.isPlaying = after.speech && speech.isLoaded
            } else {
                music = Self.player(step.music)
                speech = Self.player(step.speech)
            }
            let result = LockScreenRule.update(music: music, speech: speech, flags: flags)
            flags = result.flags
            #expect(result.shows.rawValue == step.shows, "step \(index + 1) of \(testCase.name)")
        }
    }

    static let states: [LockScreenRule.Player] = [.empty, .paused, .playing]
    static let allFlags = [false, true].flatMap { music in [false, true].map { LockScreenRule.Flags(musicWasPlaying: music, speechWasPlaying: $0) } }

    @Test("every combination: what plays is shown, nothing unloaded is shown, and a press pauses or resumes as the seed says")
    func everyCombination() {
        var seen = Set<LockScreenRule.Shows>()
        for music in Self.states {
            for speech in Self.states {
                for flags in Self.allFlags {
                    let (shows, next) = LockScreenRule.update(music: music, speech: speech, flags: flags)
                    seen.insert(shows)
                    let label = "music \(music), speech \(speech), \(flags)"
                    switch (music.isPlaying, speech.isPlaying) {
                    case (true, true): #expect(shows == .combined, "\(label)")
                    case (true, false): #expect(shows == .music, "\(label)")
                    case (false, true): #expect(shows == .speech, "\(label)")
                    case (false, false):
                        if flags.musicWasPlaying && flags.speechWasPlaying && music.isLoaded && speech.isLoaded {
                            #expect(shows == .combined, "both were playing: \(label)")
                        } else if flags.musicWasPlaying && music.isLoaded {
                            #expect(shows == .music, "\(label)")
                        } else if flags.speechWasPlaying && speech.isLoaded {
                            #expect(shows == .speech, "\(label)")
                        }
                    }
                    if !music.isLoaded { #expect(shows != .music && shows != .combined && !next.musicWasPlaying, "\(label)") }
                    if !speech.isLoaded { #expect(shows != .speech && shows != .combined && !next.speechWasPlaying, "\(label)") }
                    if !music.isLoaded && !speech.isLoaded { #expect(shows == .nothing) }

                    let press = LockScreenRule.togglePress(music: music, speech: speech, flags: flags)
                    if music.isPlaying || speech.isPlaying {
                        #expect(press == (false, false), "a press while anything plays pauses all: \(label)")
                    } else {
                        #expect(!press.music || music.isLoaded)
                        #expect(!press.speech || speech.isLoaded)
                        // Whatever the press resumes, the next update shows.
                        let after = LockScreenRule.update(
                            music: .init(isLoaded: music.isLoaded, isPlaying: press.music),
                            speech: .init(isLoaded: speech.isLoaded, isPlaying: press.speech), flags: next).shows
                        #expect(after == shows, "\(label)")
                    }
                }
            }
        }
        #expect(seen == Set(LockScreenRule.Shows.allCases))
    }
}
