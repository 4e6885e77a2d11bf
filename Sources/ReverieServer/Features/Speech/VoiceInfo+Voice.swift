import ReverieAPI
import Speech

extension VoiceInfo {
    /// An engine's voice as the API sends it: the one place a `Voice` becomes JSON.
    init(_ voice: Voice) { self.init(id: voice.id, name: voice.name, language: voice.language, engine: voice.engine) }
}
