// libFuzzer harness: a backup zip given to `reverie restore` (as downloaded from Settings), over
// arbitrary bytes written as a file: `Backups.BackupArchive.unpack` (`SafeArchive`'s
// reading of the archive, the manifest decoded, each file it lists extracted), then
// `BackupArchive.verify` of what came out (each file's size and SHA-256, with Fuzz/SHA256.swift for
// swift-crypto's). Nothing may crash, and every error must be a `BackupError`. Whether the
// unpacking succeeds or not, nothing may be written out of the folder it unpacks into, nothing in
// it may be a link, and every file in it must resolve inside it, be listed in the manifest (or be
// the manifest) and hold no more bytes than listed for it.
import Foundation

/// This process's scratch folder, removed when the fuzzer exits.
func scratch() -> URL { URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("reverie-backup-fuzz-\(getpid())", isDirectory: true) }
let fuzzRoot: URL = {
    atexit { try? FileManager.default.removeItem(at: scratch()) }
    return scratch()
}()
let fuzzZip = fuzzRoot.appendingPathComponent("backup.zip")
/// Unpacked four folders down, so that a path climbing out (`../x`, `../../../../x`) lands in the
/// scratch folder, where it is looked for.
let fuzzUnpacked = fuzzRoot.appendingPathComponent("1/2/3/unpacked", isDirectory: true)
let fuzzAbove = ["1", "1/2", "1/2/3"].map { fuzzRoot.appendingPathComponent($0).standardizedFileURL.resolvingSymlinksInPath().path }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBackup(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    try? FileManager.default.removeItem(at: fuzzUnpacked)
    try? FileManager.default.createDirectory(at: fuzzUnpacked.deletingLastPathComponent(), withIntermediateDirectories: true)
    guard (try? bytes.write(to: fuzzZip)) != nil else { return 0 }
    let unpacked = Result { try BackupArchive.unpack(fuzzZip, into: fuzzUnpacked) }
    if case let .failure(error) = unpacked, !(error is BackupError) { fatalError("unpack: not a BackupError: \(error)") }

    // Nothing written out of the folder: the scratch folder holds the zip (as it was), the folders
    // down to the unpacked one, and what is in that.
    let root = fuzzRoot.standardizedFileURL.resolvingSymlinksInPath().path
    let base = fuzzUnpacked.standardizedFileURL.resolvingSymlinksInPath().path
    if let walker = FileManager.default.enumerator(at: fuzzRoot, includingPropertiesForKeys: nil) {
        for case let url as URL in walker {
            let path = url.standardizedFileURL.resolvingSymlinksInPath().path
            if path == base || path.hasPrefix(base + "/") || fuzzAbove.contains(path) { continue }
            // (Read through a handle: Foundation's Data(contentsOf:) leaks 4 KiB on an empty file.)
            let handle = try? FileHandle(forReadingFrom: url)
            let found = (try? handle?.readToEnd()) ?? nil
            try? handle?.close()
            guard path == root + "/" + fuzzZip.lastPathComponent, found ?? Data() == bytes else {
                fatalError("\(url.path) written, out of \(base)")
            }
        }
    }

    // What the manifest lists: where unpack writes each path (`appendingPathComponent`, as it does:
    // a NUL, for one, is written as "%00") → the most bytes listed for it (a path may be listed
    // twice; a negative count bounds a file at empty). A failed unpacking may have left the
    // manifest cut short (when it lists itself, with fewer bytes): then only where files are is checked.
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let manifestFile = fuzzUnpacked.appendingPathComponent(BackupArchive.manifestName)
    let manifest = (try? Data(contentsOf: manifestFile)).flatMap { try? decoder.decode(BackupManifest.self, from: $0) }
    if case .success = unpacked, manifest == nil { fatalError("unpacked, without a manifest that decodes") }
    var listed: [String: Int] = [:]
    for entry in manifest?.files ?? [] {
        let target = fuzzUnpacked.appendingPathComponent(entry.path).path
        listed[target] = max(listed[target] ?? 0, entry.bytes)
    }

    if let walker = FileManager.default.enumerator(at: fuzzUnpacked, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey]) {
        for case let url as URL in walker {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey])
            // unpack writes files and folders, never a link.
            if values?.isSymbolicLink == true { fatalError("a link was unpacked: \(url.path)") }
            guard values?.isRegularFile == true else { continue }
            let path = url.standardizedFileURL.resolvingSymlinksInPath().path
            guard path.hasPrefix(base + "/") else { fatalError("file \(url.path) unpacked to \(path), out of \(base)") }
            let size = ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
            if let most = listed[url.path] {
                if size > most { fatalError("\(url.path.debugDescription) unpacked with \(size) bytes, \(most) listed") }
            } else if manifest != nil, url.path != manifestFile.path {
                fatalError("\(url.path.debugDescription) unpacked, and the manifest does not list it")
            }
        }
    }

    guard case .success = unpacked else { return 0 }
    do {
        try BackupArchive.verify(fuzzUnpacked)
    } catch {
        if !(error is BackupError) { fatalError("verify: not a BackupError: \(error)") }
    }
    return 0
}
