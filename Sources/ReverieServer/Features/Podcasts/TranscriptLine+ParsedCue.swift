import Feeds
import ReverieAPI

extension TranscriptLine {
    /// A cue the transcript parsers read, as the API sends it: the one place a `ParsedCue` becomes JSON.
    init(_ cue: ParsedCue) { self.init(start: cue.start, end: cue.end, speaker: cue.speaker, text: cue.text) }
}
