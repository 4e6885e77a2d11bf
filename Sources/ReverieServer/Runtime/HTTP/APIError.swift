import Vapor

/// An error meant for the client: an HTTP status, a stable code and a sentence saying what to do.
public struct APIError: AbortError, Sendable {
    public var status: HTTPResponseStatus
    public var code: String
    public var message: String
    public var headers: HTTPHeaders

    public init(_ status: HTTPResponseStatus, code: String, _ message: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var reason: String { message }

    /// The answer for a resource that does not exist or belongs to someone else (the two look the same).
    static func notFound(_ what: String) -> APIError {
        APIError(.notFound, code: "not_found", "No \(what) with that id.")
    }

    /// 429 for a throttled sign-in or password check, with `Retry-After`.
    static func tooManyAttempts(_ lockout: LoginThrottle.Lockout) -> APIError {
        let seconds = lockout.retryAfter
        return APIError(.tooManyRequests, code: "too_many_attempts",
                        "Too many failed attempts. Try again in \(seconds) \(seconds == 1 ? "second" : "seconds").",
                        headers: ["Retry-After": String(seconds)])
    }
}
