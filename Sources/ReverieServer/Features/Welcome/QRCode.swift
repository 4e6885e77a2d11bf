import AudioRender
import Foundation

/// QR codes of an address, drawn by Debian's `qrencode` (installed by scripts/bootstrap.sh): as
/// SVG for the welcome page, and as text for the terminal. Without the tool there is none, and the
/// address is still printed.
enum QRCode {
    /// An SVG QR code of `text`, or nil without `qrencode`.
    static func svg(for text: String, runner: CommandRunner = .live) async throws -> String? {
        try await draw(text, type: "SVG", runner: runner)
    }

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
