import NIOCore
import NIOHTTP1
import ReverieAPI
import SQLiteNIO
import Vapor

/// Turns every error into `{"error":{"code","message"}}` with the right status.
///
/// Outermost middleware: it also catches errors thrown by the router (unknown route → 404) and by
/// body collection (too large → 413). On the event loop, like `SecurityHeadersMiddleware`.
struct APIErrorMiddleware: Middleware {
    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        next.respond(to: request).flatMapErrorThrowing { error in Self.response(for: error, request: request) }
    }

    static func response(for error: any Error, request: Request) -> Response {
        let answer = Self.answer(for: error, request: request)
        let response = Response(status: answer.status, headers: answer.headers)
        do {
            try response.content.encode(APIErrorBody(code: answer.code, message: answer.message), as: .json)
        } catch {
            response.body = .init(string: #"{"error":{"code":"internal_error","message":"Could not encode the error."}}"#)
        }
        return response
    }

    /// What a client is told of `error` (its status, code, sentence and headers), logged as it
    /// deserves; `response` writes it in the one error shape, and a protocol with a shape of its
    /// own (wallabag's) writes it in that.
    static func answer(for error: any Error, request: Request) -> APIError {
        let status: HTTPResponseStatus
        let code: String
        let message: String
        var headers = HTTPHeaders()

        switch error {
        case let known where ErrorTable.apiError(for: known) != nil:
            // Every error the table knows (engines', features', outside fetches'), wherever it is thrown.
            let answer = ErrorTable.apiError(for: known)!
            (status, code, message, headers) = (answer.status, answer.code, answer.message, answer.headers)
        case let error as DecodingError:
            (status, code, message) = (.badRequest, "invalid_json", Self.describe(error))
        case let error as any AbortError where error.status == .unprocessableEntity && request.body.data.map({ $0.readableBytes == 0 }) ?? true:
            // Vapor says 422 for a missing body; every other unreadable body is a 400.
            (status, code, message) = (.badRequest, "invalid_json", "The body is empty; send a JSON object.")
        case let error as any AbortError where error.status == .unsupportedMediaType:
            // Like every other body that cannot be read as JSON: a 400 that says what to send.
            (status, code, message) = (.badRequest, "invalid_json", "Send the body as JSON, with Content-Type: application/json.")
        case let error as any AbortError:
            status = error.status
            headers = error.headers
            code = Self.code(for: error.status)
            if error.status == .notFound, error.reason == status.reasonPhrase || error.reason.isEmpty {
                message = "Nothing at \(request.method.rawValue) \(request.url.path)."
            } else if error.status == .payloadTooLarge {
                message = "The request body is too large for this endpoint."
            } else {
                message = error.reason
            }
        case is ConnectionPoolTimeoutError:
            // Every database connection stayed busy for the pool's whole wait: the server is
            // overloaded, not broken; the client can try again.
            request.logger.warning("\(request.method) \(request.url.path): no database connection came free in time")
            (status, code, message) = (.serviceUnavailable, "busy", "The server is busy; try again in a moment.")
            headers.replaceOrAdd(name: .retryAfter, value: "2")
        case let error as SQLiteError where [.busy, .locked, .busyTimeout].contains(error.reason):
            // SQLite's write lock stayed taken past busy_timeout (10 s: a starved machine) or a
            // read-then-write transaction met another writer: nothing was written, and it is
            // worth asking again, as a client does for a busy pool.
            request.logger.warning("\(request.method) \(request.url.path): the database stayed locked: \(error)")
            (status, code, message) = (.serviceUnavailable, "busy", "The server is busy; try again in a moment.")
            headers.replaceOrAdd(name: .retryAfter, value: "2")
        case is ChannelError, is HTTPParserError, is IOError:
            // The client went away mid-request (an upload aborted, a connection reset): nothing
            // failed here, so no 500 and no ERROR in the log; the answer likely reaches no one.
            request.logger.debug("\(request.method) \(request.url.path): the client went away: \(error)")
            (status, code, message) = (.badRequest, "request_incomplete", "The request ended before its body arrived.")
        default:
            request.logger.report(error: error)
            (status, code, message) = (.internalServerError, "internal_error", "Something went wrong on the server; its log has the details.")
        }

        // A busy server (503) is overloaded, not broken: its warning is logged above.
        if status.code >= 500, status != .serviceUnavailable, ErrorTable.apiError(for: error) == nil {
            request.logger.error("\(request.method) \(request.url.path) → \(status.code): \(String(reflecting: error))")
        }

        return APIError(status, code: code, message, headers: headers)
    }

    static func code(for status: HTTPResponseStatus) -> String {
        switch status {
        case .badRequest: "bad_request"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .notFound: "not_found"
        case .methodNotAllowed: "method_not_allowed"
        case .conflict: "conflict"
        case .payloadTooLarge: "payload_too_large"
        case .unsupportedMediaType: "unsupported_media_type"
        case .tooManyRequests: "too_many_requests"
        case .rangeNotSatisfiable: "range_not_satisfiable"
        default: status.code >= 500 ? "internal_error" : "http_\(status.code)"
        }
    }

    /// A sentence for a JSON decoding failure that names the field when there is one.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case let .keyNotFound(key, context):
            let parent = path(context)
            return "Missing field '\(parent.isEmpty ? key.stringValue : parent + "." + key.stringValue)'."
        case let .typeMismatch(type, context):
            return "Field '\(path(context))' should be \(Self.describe(type))."
        case let .valueNotFound(type, context):
            return "Field '\(path(context))' should be \(Self.describe(type)), not null."
        case let .dataCorrupted(context):
            let field = path(context)
            if field.isEmpty { return "The body is not valid JSON." }
            return "Field '\(field)' has an invalid value: \(context.debugDescription)"
        @unknown default:
            return "The body could not be read as JSON."
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        default: "of type \(type)"
        }
    }
}
