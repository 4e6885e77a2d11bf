/// The version of Reverie this build is, as reported by `reverie --version` and `GET /api/health`.
public enum ReverieVersion {
    /// Semantic version of the server, the CLI and the web app shipped with them.
    public static let current = "0.1.0"
}
