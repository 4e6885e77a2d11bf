import AudioRender
import Foundation
import NIOConcurrencyHelpers

/// QR codes of an address, drawn by Debian's `qrencode` (installed by scripts/bootstrap.sh): as
/// SVG for the welcome page, and as text for the terminal. Without the tool there is none, and the
/// address is still printed.
enum QRCode {
    /// An SVG QR code of `text`, or nil without `qrencode`; each address is drawn once, so the
    /// welcome page starts no program after the first time (a program started beside a long-lived
    /// one, like a Piper worker, can be held up by Foundation's wait for it).
    static func svg(for text: String, runner: CommandRunner = .live) async throws -> String? {
        if let drawn = drawnSVG.withLockedValue({ $0[text] }) { return drawn }
        let drawn = try await draw(text, type: "SVG", runner: runner)
        if let drawn { drawnSVG.withLockedValue { $0[text] = drawn } }
        return drawn
    }

    private static let drawnSVG = NIOLockedValueBox<[String: String]>([:])

    /// `text` as a QR code drawn with block characters, for a terminal; nil without `qrencode`.
    static func terminal(for text: String, runner: CommandRunner = .live) async throws -> String? {
        try await draw(text, type: "UTF8", runner: runner)
    }

    private static func draw(_ text: String, type: String, runner: CommandRunner) async throws -> String? {
        guard let tool = CommandRunner.locate("qrencode") else { return nil }
        // `--` so an address can never be read as an option.
        let result = try await runner.run(tool, ["-t", type, "-m", "2", "-l", "M", "-o", "-", "--", text], nil)
        guard result.status == 0 else { return nil }
        return String(decoding: result.output, as: UTF8.self)
    }
}
