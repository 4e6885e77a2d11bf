// libFuzzer harness: an audiobook uploaded to the Listen library as a zip of MP3 parts, over
// arbitrary bytes written as a file: `Reader.AudiobookZip.extractMP3s` (the zip read
// through `SafeArchive`: entries, ratio and bytes capped, no path out of the archive; the MP3
// entries chosen and written), then what `LibraryStore.addBook` does with the parts in-process
// (`MediaFile.parse` of each, `MP3Book.ordered`, `MP3Book.join`). Nothing may crash; every part
// must be an .mp3 entry written inside the scratch folder, no more bytes out than the limit; the
// book's chapters one a part, end to end from 0, and no more audio out than the parts hold.
import Foundation

/// This process's scratch folder, removed when the fuzzer exits.
func scratch() -> URL { URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("reverie-audiobook-fuzz-\(getpid())", isDirectory: true) }
let fuzzRoot: URL = {
    atexit { try? FileManager.default.removeItem(at: scratch()) }
    return scratch()
}()
let fuzzZip = fuzzRoot.appendingPathComponent("upload.zip")
let fuzzWork = fuzzRoot.appendingPathComponent("work", isDirectory: true)
let fuzzLimit = 4 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudiobook(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    try? FileManager.default.removeItem(at: fuzzWork)
    try? FileManager.default.createDirectory(at: fuzzWork, withIntermediateDirectories: true)
    guard (try? bytes.write(to: fuzzZip)) != nil else { return 0 }
    let extracted = Result { try AudiobookZip.extractMP3s(fuzzZip, into: fuzzWork, limit: fuzzLimit) }
    guard case let .success(entries) = extracted else {
        if case let .failure(error) = extracted, !(error is ArchiveError) { fatalError("not an ArchiveError: \(error)") }
        return 0
    }
    if entries.isEmpty { fatalError("no parts, and no error") }
    let inside = fuzzWork.standardizedFileURL.path + "/"
    var total = 0
    for entry in entries {
        let path = entry.file.standardizedFileURL.resolvingSymlinksInPath().path
        let components = entry.name.split(separator: "/", omittingEmptySubsequences: false)
        guard path.hasPrefix(inside), entry.name.lowercased().hasSuffix(".mp3"),
              !components.contains(where: { $0 == ".." || $0 == "__MACOSX" || $0.hasPrefix(".") }) else {
            fatalError("part \(entry.name.debugDescription) written to \(path)")
        }
        total += ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
    }
    if total > fuzzLimit { fatalError("\(total) bytes out, past the limit of \(fuzzLimit)") }

    // The book, as LibraryStore.addBook makes it (which fails the upload when a part cannot be read).
    guard let parts = try? entries.map({ MP3Book.Part(path: $0.file.path, name: $0.name, media: try MediaFile.parse(path: $0.file.path)) }) else { return 0 }
    let ordered = MP3Book.ordered(parts)
    if Set(ordered.map(\.path)) != Set(parts.map(\.path)) || ordered.count != parts.count { fatalError("ordering lost or made parts") }
    guard let chapters = try? MP3Book.join(ordered, to: fuzzWork.appendingPathComponent("joined.mp3").path) else { return 0 }
    var end = 0.0
    for (chapter, part) in zip(chapters, ordered) {
        guard chapter.start == end, chapter.end >= chapter.start, chapter.title == part.title else {
            fatalError("chapter \(chapter) after \(end), for \(part.name)")
        }
        end = chapter.end
    }
    let joined = ((try? FileManager.default.attributesOfItem(atPath: fuzzWork.appendingPathComponent("joined.mp3").path)[.size]) as? Int) ?? -1
    if chapters.count != parts.count || joined < 0 || joined > total { fatalError("\(parts.count) parts of \(total) bytes joined into \(chapters.count) chapters, \(joined) bytes") }
    return 0
}
