import AudioRender
import Foundation
import Speech
import Testing

@Suite("Fitting speech to a length, and sleep narration over a bed")
struct SleepNarrationTests {
    let script = "Settle in. (2s) Let the body rest. (4s) Breathe. (3s)\nLet sleep come. (6s)"

    @Test("every pause is scaled by one factor so the audio lasts exactly the length asked for")
    func fitting() async throws {
        let natural = try await ScriptRenderer(engine: ToneEngine()).render(script)
        let longer = try await ScriptRenderer(engine: ToneEngine()).render(script, fitting: 40)
        #expect(longer.audio.samples.count == AudioBuffer.sampleCount(40, longer.audio.sampleRate))
        let factors = zip(longer.timeline.pauses, [2.0, 4, 3, 6]).map { $0.seconds / $1 }
        #expect(factors.allSatisfy { abs($0 - factors[0]) < 1e-9 } && factors[0] > 1)
        // The phrases are the same speech, only moved.
        #expect(zip(natural.timeline.phrases, longer.timeline.phrases).allSatisfy { $0.endMs - $0.startMs == $1.endMs - $1.startMs })
        let shorter = try await ScriptRenderer(engine: ToneEngine()).render(script, fitting: natural.audio.duration - 5)
        #expect(abs(shorter.audio.duration - (natural.audio.duration - 5)) < 0.001)
    }

    @Test("a length the speech cannot fit in says so")
    func cannotFit() async throws {
        // 2.5 s of speech: pauses at a quarter (3.75 s) still fit 8 s; 5 s and 2 s do not.
        #expect(try await ScriptRenderer(engine: ToneEngine()).render(script, fitting: 8).audio.duration == 8)
        for target in [5.0, 2.0] {
            await #expect { try await ScriptRenderer(engine: ToneEngine()).render(self.script, fitting: target) } throws: { error in
                (error as? SpeechError)?.description.contains("too long for \(Int(target)) s") == true
            }
        }
    }

    @Test("sleep narration: the exact length, −16 LUFS, the bed under the voice and alone in the pauses")
    func narration() async throws {
        let rendered = try await SleepNarration(engine: ToneEngine()).render(script, seconds: 45)
        let audio = rendered.audio
        #expect(audio.samples.count == AudioBuffer.sampleCount(45, audio.sampleRate))
        #expect(abs(try Loudness.integrated(audio) - (-16)) < 1)
        #expect(audio.peak <= amplitude(decibels: -1) + 1e-4)
        // In the long pause the bed plays on its own, well under the voice.
        let pause = try #require(rendered.timeline.pauses.max { $0.seconds < $1.seconds })
        let quiet = audio.rms(AudioBuffer.sampleCount(Double(pause.startMs) / 1000 + 1.5, audio.sampleRate)..<AudioBuffer.sampleCount(Double(pause.endMs) / 1000 - 1.5, audio.sampleRate))
        let phrase = rendered.timeline.phrases[1]
        let voice = audio.rms(AudioBuffer.sampleCount(Double(phrase.startMs) / 1000, audio.sampleRate)..<AudioBuffer.sampleCount(Double(phrase.endMs) / 1000, audio.sampleRate))
        #expect(quiet > 0, "the bed is heard in the pauses")
        #expect(decibels(voice) - decibels(quiet) > 10, "voice \(decibels(voice)) dBFS, bed \(decibels(quiet)) dBFS")
    }
}
