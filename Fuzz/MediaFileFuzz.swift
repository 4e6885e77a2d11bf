// libFuzzer harness: the format sniffer and the readers it picks (`MediaFormats.MediaFile.parse`:
// the first 16 bytes decide MP4 or MP3, anything else is refused) over arbitrary bytes, the way
// an upload to the Listen library reaches it: from memory and from the file, which must read the
// same. What it reads must be what the library stores without trapping: the format the sniffer
// named, a finite duration whose milliseconds fit an Int, chapters in order within finite times.
// An MP3 is then joined as a one-part book (`MP3Book.join`, as a zip's parts are): one chapter
// as long as the file, and no more bytes out than went in.
import Foundation

/// This process's scratch folder, removed when the fuzzer exits.
func scratch() -> URL { URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("reverie-media-fuzz-\(getpid())", isDirectory: true) }
let fuzzDirectory: URL = {
    atexit { try? FileManager.default.removeItem(at: scratch()) }
    return scratch()
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMediaFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let parsed = Result { try MediaFile.parse(data: bytes) }
    guard case let .success(media) = parsed else {
        if case let .failure(error) = parsed, !(error is MediaFormatsError) { fatalError("not a MediaFormatsError: \(error)") }
        return 0
    }
    guard (try? MediaFile.sniff(MemoryByteSource(bytes))) == media.format else { fatalError("read as \(media.format), sniffed otherwise") }
    // The library stores Int((duration × 1000).rounded()) and the chapters' times as JSON numbers.
    guard media.duration.isFinite, media.duration >= 0, (media.duration * 1000).rounded() < 0x1p63 else {
        fatalError("duration \(media.duration) s")
    }
    for chapter in media.chapters where !(chapter.start.isFinite && chapter.end.isFinite && chapter.start >= 0 && chapter.end >= chapter.start) {
        fatalError("chapter \(chapter)")
    }
    for (chapter, next) in zip(media.chapters, media.chapters.dropFirst()) where chapter.start > next.start {
        fatalError("chapters out of order: \(media.chapters)")
    }

    try? FileManager.default.createDirectory(at: fuzzDirectory, withIntermediateDirectories: true)
    let file = fuzzDirectory.appendingPathComponent("input"), joined = fuzzDirectory.appendingPathComponent("joined.mp3")
    guard (try? bytes.write(to: file)) != nil else { return 0 }
    guard let fromFile = try? MediaFile.parse(path: file.path), fromFile == media else {
        fatalError("the file reads otherwise than the same bytes in memory: \(media)")
    }
    guard media.format == .mp3 else { return 0 }
    let part = MP3Book.Part(path: file.path, name: "part.mp3", media: media)
    guard let chapters = try? MP3Book.join([part], to: joined.path) else { return 0 }
    let written = ((try? FileManager.default.attributesOfItem(atPath: joined.path)[.size]) as? Int) ?? -1
    guard chapters.count == 1, chapters[0].start == 0, chapters[0].end == media.duration, written >= 0, written <= size else {
        fatalError("one part joined into \(chapters), \(written) bytes of \(size)")
    }
    return 0
}
