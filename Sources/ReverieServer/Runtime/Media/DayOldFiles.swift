import Foundation

/// Caches of files made for one night (the sleep timer's renditions, whole meditation sessions)
/// keep a file for a day: a timer set last night, or a session's drawn seed, is not asked for again.
enum DayOldFiles {
    /// Removes the files in `directory` last changed more than `age` seconds (a day) before
    /// `now` (not the dot-named ones being written).
    static func remove(in directory: URL, olderThan age: TimeInterval = 24 * 3600, now: Date = Date()) {
        let fileManager = FileManager.default
        guard let names = try? fileManager.contentsOfDirectory(atPath: directory.path) else { return }
        let old = now.addingTimeInterval(-age)
        for name in names where !name.hasPrefix(".") {
            let path = directory.appendingPathComponent(name).path
            if let modified = (try? fileManager.attributesOfItem(atPath: path))?[.modificationDate] as? Date, modified < old {
                try? fileManager.removeItem(atPath: path)
            }
        }
    }
}
