/// The one error shape every `/api/…` route answers with: `{"error":{"code","message"}}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// The inner object: a stable machine-readable `code` and a sentence for people.
    public struct Detail: Codable, Sendable, Equatable {
        /// Stable, snake_case identifier a client can branch on (`not_found`, `invalid_json`, …).
        public var code: String
        /// What went wrong and, where there is one, what to do about it.
        public var message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The error itself.
    public var error: Detail

    public init(code: String, message: String) {
        self.error = Detail(code: code, message: message)
    }
}
