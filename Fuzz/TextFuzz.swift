// libFuzzer harness: plain text from outside (`Reader.Documents`): `kind(of:name:)`, which tells
// text from a web page or binary data by its bytes; `decode`, which reads the bytes by their
// byte-order mark, as UTF-8, as UTF-16 without a mark, else as Windows-1252 (a song imported into
// Write goes through those two and nothing else); and `plainText`, a text file or pasted text as
// an article. Bytes that are UTF-8 (and no NUL) must read as exactly that text, a mark must never
// be kept, UTF-16 without a mark must not read as letters and NULs, no text may be lost whole,
// and the article must hold together (ArticleChecks).
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzText(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let text = Documents.decode(bytes)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
        guard text == String(decoding: bytes.dropFirst(3), as: UTF8.self) else { fatalError("UTF-8 after its mark read as \(text.debugDescription)") }
    } else if !bytes.starts(with: [0xFF, 0xFE]) && !bytes.starts(with: [0xFE, 0xFF]), !bytes.contains(0), let utf8 = String(validating: bytes, as: UTF8.self) {
        guard text == utf8 else { fatalError("valid UTF-8 read as \(text.debugDescription)") }
    }
    // UTF-16 without a mark, one zero byte a letter, must not read as text with NULs in it.
    if size >= 4, size % 2 == 0, stride(from: 1, to: size, by: 2).allSatisfy({ data[$0] == 0 }), stride(from: 0, to: size, by: 2).allSatisfy({ data[$0] != 0 }),
       text.unicodeScalars.contains("\0") {
        fatalError("UTF-16 read as \(text.debugDescription)")
    }
    let marks = [[0xEF, 0xBB, 0xBF], [0xFF, 0xFE], [0xFE, 0xFF]].first { bytes.starts(with: $0) }?.count ?? 0
    if size > marks + 1, text.isEmpty { fatalError("\(size) bytes of text read as none") }

    // The song import asks with the name it was given (or song.txt); an article upload sniffs too.
    for name in ["song.txt", "fuzz"] {
        guard (try? Documents.kind(of: bytes, name: name)) == .txt else { continue }
        guard let article = try? Documents.plainText(bytes, name: name) else { continue }
        checkArticle(article)
        if article.title.isEmpty || article.title.contains("\n") { fatalError("title \(article.title.debugDescription)") }
    }
    return 0
}
