import Foundation

/// An HTTP `Range` header, as RFC 9110 §14 reads it, for a file of a known size: outside bytes
/// on every player request, so read here by hand (Vapor's parser costs twenty times as much) and
/// fuzzed with the other parsers.
public enum RangeHeader {
    /// What a `Range` header asks of a file.
    public enum Answer: Equatable, Sendable {
        /// One range inside the file (first and last byte): a 206.
        case part(ClosedRange<Int>)
        /// Nothing the file has: a 416 with its size (a start at or past the end, a suffix of 0).
        case unsatisfiable
        /// A header to ignore, answering the whole file with 200: another unit, a malformed
        /// range (`bytes=a-b`, `bytes=5-4`), or several ranges (which a server may always ignore).
        case whole
    }

    /// What `header` asks of a file of `size` bytes. A range that runs past the end is clamped to
    /// the file (RFC 9110 §14.1.2).
    public static func read(_ header: String, size: Int) -> Answer {
        let header = header.trimmingCharacters(in: .whitespaces)
        guard header.count > 6, header.prefix(6).lowercased() == "bytes=" else { return .whole }
        let spec = header.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let (head, tail) = (spec[..<dash], spec[spec.index(after: dash)...])
        func digits(_ text: Substring) -> Bool { !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber } }
        if head.isEmpty {
            // The last `count` bytes.
            guard digits(tail) else { return .whole }
            guard let count = Int(tail) else { return size > 0 ? .part(0...(size - 1)) : .unsatisfiable }  // more than any file
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .part(max(0, size - count)...(size - 1))
        }
        guard digits(head), tail.isEmpty || digits(tail) else { return .whole }
        // A start too large to be a number is past any file's end.
        guard let first = Int(head), first < size else { return .unsatisfiable }
        guard !tail.isEmpty else { return .part(first...(size - 1)) }
        let last = Int(tail) ?? Int.max
        guard last >= first else { return .whole }
        return .part(first...min(last, size - 1))
    }
}
