import NIOHTTP1
import Vapor

/// What a route takes as its body, kept in its `userInfo` (`RoutesBuilder.on(_:_:takes:use:)`).
/// A route that says nothing takes JSON up to the server's `maxBodyBytes`.
enum RequestBody: Sendable, Equatable {
    /// A JSON object, collected up to `limit` bytes.
    case json(limit: Int)
    /// A file of any type (a text file, an OPML list), collected up to `limit` bytes.
    case file(limit: Int)
    /// Streamed to disk by the handler, which checks the declared length against its own limit
    /// (`MediaFiles.receive`).
    case streamed

    static let key = "reverie.body"

    /// Vapor's strategy for it.
    var strategy: HTTPBodyStreamStrategy {
        switch self {
        case .json(let limit), .file(let limit): .collect(maxSize: ByteCount(value: limit))
        case .streamed: .stream
        }
    }
}

extension RoutesBuilder {
    /// A route whose body is `body`: registered with the strategy for it, and the rule kept where
    /// `RequestBodyGuard` reads it.
    @discardableResult
    func on<Answer: AsyncResponseEncodable>(_ method: HTTPMethod, _ path: PathComponent..., takes body: RequestBody,
                                            use closure: @Sendable @escaping (Request) async throws -> Answer) -> Route {
        let route = on(method, path, body: body.strategy, use: closure)
        route.userInfo[RequestBody.key] = body
        return route
    }
}

/// Answers a body the route will not take before a byte of it is read:
/// - 413 when the declared `Content-Length` is over the route's limit: answered as the first of
///   the body arrives (Vapor hands a request on then), not after reading up to the limit or
///   waiting for the rest until the idle timeout;
/// - 415 when a route that takes JSON is sent something else (a form, text): Vapor would read a
///   form into the same fields, so a form posted from another page could act as the person.
/// On the event loop, like the other middleware that wrap every request.
struct RequestBodyGuard: Middleware {
    let defaultLimit: Int

    func respond(to request: Request, chainingTo next: any Responder) -> EventLoopFuture<Response> {
        do {
            try check(request)
        } catch {
            return request.eventLoop.makeFailedFuture(error)
        }
        return next.respond(to: request)
    }

    func check(_ request: Request) throws {
        guard let route = request.route else { return }
        let headers = request.headers
        let declared = headers.first(name: .contentLength).flatMap(Int.init)
        let hasBody = (declared ?? 0) > 0 || headers.contains(name: .transferEncoding) || (request.body.data?.readableBytes ?? 0) > 0
        guard hasBody else { return }
        let rule = route.userInfo[RequestBody.key] as? RequestBody ?? .json(limit: defaultLimit)
        switch rule {
        case .streamed:
            return
        case .json(let limit), .file(let limit):
            if let declared, declared > limit {
                throw APIError(.payloadTooLarge, code: "payload_too_large",
                               "The body is \(Self.size(declared)); \(request.url.path) takes at most \(Self.size(limit)).")
            }
        }
        if case .json = rule, !Self.isJSON(request.content.contentType) {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type",
                           "Send the body as JSON, with Content-Type: application/json (this was \(headers.first(name: .contentType) ?? "sent without a Content-Type")).")
        }
    }

    /// As the upload limit says sizes (`MediaUploadError`): "4.66 GB", "1 MB".
    static func size(_ bytes: Int) -> String {
        ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .binary)
    }

    /// `application/json`, or a type built on it (`application/merge-patch+json`).
    static func isJSON(_ type: HTTPMediaType?) -> Bool {
        guard let type, type.type.lowercased() == "application" else { return false }
        let subtype = type.subType.lowercased()
        return subtype == "json" || subtype.hasSuffix("+json")
    }
}

/// The JSON decoder for request bodies: what `JSONDecoder` reads, with control characters refused
/// in every string (keys too), a 400 naming the field. A NUL or an escape character in a title
/// would be stored and shown, or cut a name short where it is passed on; tab, line feed and
/// carriage return are text (lyrics have lines). The common body, with no escape that could be
/// one (`\u`, `\b`, `\f`) and no raw DEL or C1 character, is read once; only one that may hold
/// one is walked to find the field.
struct CheckedJSONDecoder: ContentDecoder {
    let json: JSONDecoder

    func decode<D: Decodable>(_ decodable: D.Type, from body: ByteBuffer, headers: HTTPHeaders) throws -> D {
        try decode(decodable, from: body, headers: headers, userInfo: [:])
    }

    func decode<D: Decodable>(_ decodable: D.Type, from body: ByteBuffer, headers: HTTPHeaders,
                              userInfo: [CodingUserInfoKey: any Sendable]) throws -> D {
        let data = Data(body.readableBytesView)
        if let field = Self.fieldWithControlCharacter(in: data) {
            throw APIError(.badRequest, code: "invalid_field", "\(field.isEmpty ? "The body" : field): control characters are not allowed in text.")
        }
        guard !userInfo.isEmpty else { return try json.decode(decodable, from: data) }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = json.dateDecodingStrategy
        decoder.userInfo = json.userInfo.merging(userInfo) { $1 }
        return try decoder.decode(decodable, from: data)
    }

    /// The path of the first string (or key) holding a control character other than tab, line
    /// feed and carriage return (`title`, `events[2].device`); nil when there is none or the body
    /// is not JSON (the decoder then says why).
    static func fieldWithControlCharacter(in data: Data) -> String? {
        guard mayHoldControl(data) else { return nil }
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        return find(in: value, at: "")
    }

    /// Whether `data` may hold a control character: C0 ones are JSON only escaped (`\u0001`,
    /// `\b`, `\f`; `\t`, `\n`, `\r` are text), DEL and C1 may also come as they are (0x7F,
    /// UTF-8 C2 80–9F). An escaped backslash before a `u` only costs a walk that finds nothing.
    static func mayHoldControl(_ data: Data) -> Bool {
        var previous: UInt8 = 0
        for byte in data {
            if byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) { return true }
            if previous == 0x5C, byte == 0x75 || byte == 0x62 || byte == 0x66 { return true }
            previous = byte
        }
        return false
    }

    /// Text without the control characters this refuses: for text taken from a file (an
    /// imported song), where there is no field to name and the person cannot retype it.
    static func withoutControls(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { !isControl($0) }))
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: false
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }

    private static func find(in value: Any, at path: String) -> String? {
        switch value {
        case let text as String:
            return text.unicodeScalars.contains(where: isControl) ? path : nil
        case let list as [Any]:
            for (index, item) in list.enumerated() {
                if let found = find(in: item, at: "\(path)[\(index)]") { return found }
            }
        case let object as [String: Any]:
            for key in object.keys.sorted() {
                let field = path.isEmpty ? key : "\(path).\(key)"
                if key.unicodeScalars.contains(where: isControl) { return field }
                if let found = find(in: object[key]!, at: field) { return found }
            }
        default:
            break
        }
        return nil
    }
}
