import ReverieAPI
import SleepLibrary

extension SleepItemInfo {
    /// The catalog entry as the API sends it: the one place an engine's `SleepItem` becomes JSON.
    init(_ item: SleepItem) {
        self.init(id: item.id, title: item.title, narrator: item.narrator, duration: item.duration, type: item.type.rawValue,
                  description: item.description, audio: item.audio, category: item.category, technique: item.technique)
    }
}
