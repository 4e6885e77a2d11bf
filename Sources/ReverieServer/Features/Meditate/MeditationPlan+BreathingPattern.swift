import Breathing
import ReverieAPI

extension MeditationPlan.Step {
    /// A breathing step with its keyframes as the plan sends it, with the word shown and announced
    /// during it: the one place a `BreathingPattern.Step` becomes JSON.
    init(_ step: BreathingPattern.Step) {
        self.init(kind: step.kind.rawValue, word: step.kind.word, seconds: step.seconds, scaleFrom: step.scaleFrom, scaleTo: step.scaleTo,
                  opacityFrom: step.opacityFrom, opacityTo: step.opacityTo)
    }
}
