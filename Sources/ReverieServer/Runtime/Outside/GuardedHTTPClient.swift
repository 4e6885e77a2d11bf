import AsyncHTTPClient
import Foundation
import NIOCore
import Vapor

/// Why an outside fetch did not happen or did not finish, in words a person can act on.
public enum OutsideFetchError: Error, Equatable, CustomStringConvertible {
    case badURL(String)
    case unresolvable(String)
    case privateAddress(host: String, address: String)
    case tooManyRedirects(Int)
    case tooLarge(limit: Int)
    case status(Int, host: String)
    case timeout(host: String)
    case unreachable(host: String)
    /// An outside service's answer was not what it documents (JSON that does not decode).
    case unreadable(host: String)

    /// The sentence for a person (the command line's words, and the API's message).
    public var description: String { apiError.message }

    /// The answer the API gives for it (`ErrorTable` reads it here).
    var apiError: APIError {
        switch self {
        case let .badURL(text):
            APIError(.badRequest, code: "invalid_url", "“\(text.prefix(200))” is not a web address Reverie can fetch: use http:// or https:// and a host name.")
        case let .unresolvable(host):
            APIError(.badGateway, code: "outside_unreachable", "The name \(host) could not be found. Check the address, or the server's connection to the internet.")
        case let .privateAddress(host, address):
            APIError(.badRequest, code: "private_address", "\(host) is a private address (\(address)) and Reverie only fetches from the public internet. The owner can allow private addresses with REVERIE_ALLOW_PRIVATE_FETCH=1.")
        case let .tooManyRedirects(count):
            APIError(.badGateway, code: "outside_redirects", "The address redirected more than \(count) times, so Reverie stopped following it.")
        case let .tooLarge(limit):
            APIError(.badGateway, code: "outside_too_large", "The answer was larger than \(ByteCountFormatter.string(fromByteCount: Int64(limit), countStyle: .file)), more than Reverie takes from there.")
        case let .status(code, host):
            APIError(.badGateway, code: "outside_status", "\(host) answered HTTP \(code). Try again later.")
        case let .timeout(host):
            APIError(.gatewayTimeout, code: "outside_timeout", "\(host) took too long to answer. Try again later.")
        case let .unreachable(host):
            APIError(.badGateway, code: "outside_unreachable", "\(host) could not be reached. Try again later.")
        case let .unreadable(host):
            APIError(.badGateway, code: "outside_unreadable", "\(host) answered with something Reverie cannot read. Try again later.")
        }
    }
}

/// What came back from an outside fetch.
struct OutsideResponse: Sendable {
    /// The address that answered, after redirects.
    var url: URL
    /// 200, or 304 for a conditional request whose answer has not changed, or 206 for a range.
    var status: Int = 200
    var headers: HTTPHeaders
    var body: ByteBuffer
}

/// The one client for every URL a person gives or an outside service answers with (LibriVox now;
/// feeds, articles and radio later): public addresses only unless the owner allows private ones
/// (checked on the resolved addresses, then connected to the address checked, so a name cannot
/// be re-pointed in between), every redirect checked again and at most five of them, timeouts,
/// size caps, no transparent decompression, and a User-Agent that says who is asking.
final class GuardedHTTPClient: Sendable {
    struct Policy: Sendable {
        /// Private, loopback and link-local addresses are allowed (`REVERIE_ALLOW_PRIVATE_FETCH`; tests).
        var allowPrivate = false
        var maxRedirects = 5
        var connectTimeout: TimeAmount = .seconds(10)
        /// Longest wait for the next bytes of an answer.
        var readTimeout: TimeAmount = .seconds(30)
        /// Longest wait for an answer's head.
        var headTimeout: TimeAmount = .seconds(30)
        var userAgent = "Reverie/1.0 (self-hosted audio companion; +https://github.com/reverie)"

        /// The same rules with every wait `factor` times as long (tests, whose hosts are fixtures
        /// on a machine that may be busy for a minute: they wait for the answer, not a clock).
        func patient(_ factor: Int64) -> Policy {
            var longer = self
            longer.connectTimeout = .nanoseconds(connectTimeout.nanoseconds * factor)
            longer.readTimeout = .nanoseconds(readTimeout.nanoseconds * factor)
            longer.headTimeout = .nanoseconds(headTimeout.nanoseconds * factor)
            return longer
        }
    }

    let policy: Policy
    let group: any EventLoopGroup

    init(policy: Policy, group: any EventLoopGroup) {
        self.policy = policy
        self.group = group
    }

    /// Fetches `url` into memory, refusing answers over `maxBytes`. `headers` go with the request
    /// (with `If-None-Match` or `If-Modified-Since`, a 304 comes back as an empty answer).
    func get(_ url: URL, accept: String = "*/*", headers: [String: String] = [:], maxBytes: Int) async throws -> OutsideResponse {
        try await fetch(url, accept: accept, headers: headers) { response, finalURL in
            var body = ByteBuffer()
            try await Self.read(response, maxBytes: maxBytes) { chunk in
                var part = chunk
                body.writeBuffer(&part)
                return true
            }
            return OutsideResponse(url: finalURL, status: Int(response.status.code), headers: response.headers, body: body)
        }
    }

    /// Fetches `url` (an outside service's API) and decodes its JSON answer as `T`.
    func json<T: Decodable>(_ type: T.Type, from url: URL, headers: [String: String] = [:], maxBytes: Int) async throws -> T {
        try await json(from: url, headers: headers, maxBytes: maxBytes) { try JSONDecoder().decode(T.self, from: $0) }
    }

    /// The JSON answer at `url` read by `read` (one of `Directories`' readers); an answer it
    /// cannot decode is `unreadable`, naming the host.
    func json<T>(from url: URL, headers: [String: String] = [:], maxBytes: Int, read: (Data) throws -> T) async throws -> T {
        let answer = try await get(url, accept: "application/json", headers: headers, maxBytes: maxBytes)
        do {
            return try read(Data(buffer: answer.body))
        } catch is DecodingError {
            throw OutsideFetchError.unreadable(host: answer.url.host ?? url.host ?? "The service")
        }
    }

    /// Each chunk of an answer's body in turn, refusing more than `maxBytes` in all (at once when
    /// Content-Length says so); `each` returns false to stop early.
    static func read(_ response: HTTPClientResponse, maxBytes: Int, _ each: (ByteBuffer) async throws -> Bool) async throws {
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
            throw OutsideFetchError.tooLarge(limit: maxBytes)
        }
        var received = 0
        for try await chunk in response.body {
            received += chunk.readableBytes
            guard received <= maxBytes else { throw OutsideFetchError.tooLarge(limit: maxBytes) }
            guard try await each(chunk) else { return }
        }
    }

    /// Streams `url` into `file`, refusing more than `maxBytes`; `progress(received, expected)`
    /// hears of each chunk (counting what the file already had). A partial file is removed on
    /// failure, unless `resuming`: then it is kept, and a file already begun is continued with a
    /// Range request (started again when the server does not do ranges).
    func download(_ url: URL, to file: URL, maxBytes: Int, resuming: Bool = false,
                  progress: @escaping @Sendable (Int, Int?) async -> Void) async throws -> OutsideResponse {
        let have = resuming ? ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0) : 0
        do {
            return try await fetch(url, accept: "*/*", headers: have > 0 ? ["Range": "bytes=\(have)-"] : [:]) { response, finalURL in
                let code = Int(response.status.code)
                if code == 416 {
                    // Asked for bytes past the end: the file was already whole.
                    return OutsideResponse(url: finalURL, status: code, headers: response.headers, body: ByteBuffer())
                }
                let continuing = code == 206 && have > 0 && Self.rangeStart(response.headers) == have
                let start = continuing ? have : 0
                let expected = response.headers.first(name: "Content-Length").flatMap(Int.init).map { $0 + start }
                if !continuing { FileManager.default.createFile(atPath: file.path, contents: nil) }
                let handle = try FileHandle(forWritingTo: file)
                defer { try? handle.close() }
                if continuing { try handle.seekToEnd() }
                var received = start
                try await Self.read(response, maxBytes: maxBytes - start) { chunk in
                    received += chunk.readableBytes
                    try handle.write(contentsOf: chunk.readableBytesView)
                    await progress(received, expected)
                    return true
                }
                return OutsideResponse(url: finalURL, status: code, headers: response.headers, body: ByteBuffer())
            }
        } catch {
            // A partial file is kept for the next attempt, but never one that is already too large.
            var tooLarge = false
            if case OutsideFetchError.tooLarge = error { tooLarge = true }
            if !resuming || tooLarge { try? FileManager.default.removeItem(at: file) }
            throw error
        }
    }

    /// Where a 206's `Content-Range: bytes START-END/TOTAL` begins.
    static func rangeStart(_ headers: HTTPHeaders) -> Int? {
        guard let value = headers.first(name: "Content-Range"), value.lowercased().hasPrefix("bytes ") else { return nil }
        return value.dropFirst(6).split(separator: "-").first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The host and address a URL may be fetched from, or why not.
    func check(_ url: URL) async throws -> (host: String, address: OutsideAddress) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty, url.user == nil, url.password == nil else {
            throw OutsideFetchError.badURL(url.absoluteString)
        }
        let addresses = try await OutsideAddress.resolve(host)
        if !policy.allowPrivate, let bad = addresses.first(where: \.isPrivate) {
            throw OutsideFetchError.privateAddress(host: host, address: bad.description)
        }
        return (host, addresses[0])
    }

    /// Streams `url` to a person (a LibriVox section played before it is downloaded): the answer's
    /// head at once, then its body one chunk at a time, each fetched only when the last was sent
    /// (so a slow listener never makes the server hold a file). `range` is passed on.
    func stream(_ url: URL, range: String?, maxBytes: Int) async throws -> (status: Int, headers: HTTPHeaders, body: Handoff) {
        let handoff = Handoff()
        let head = Handoff.Head()
        let task = Task {
            do {
                _ = try await fetch(url, accept: "audio/*", headers: range.map { ["Range": $0] } ?? [:]) { response, _ in
                    await head.set(.success((Int(response.status.code), response.headers)))
                    // A false from the handoff: the listener went away.
                    try await Self.read(response, maxBytes: maxBytes) { await handoff.put($0) }
                    await handoff.finish(nil)
                    return 0
                }
            } catch {
                await head.set(.failure(error))
                await handoff.finish(error)
            }
        }
        handoff.producer = task
        let (status, headers) = try await head.value()
        return (status, headers, handoff)
    }

    private func fetch<T: Sendable>(_ url: URL, accept: String, headers extra: [String: String] = [:],
                                    read: @Sendable (HTTPClientResponse, URL) async throws -> T) async throws -> T {
        var current = url
        for _ in 0...policy.maxRedirects {
            let (host, address) = try await check(current)
            var configuration = HTTPClient.Configuration()
            configuration.redirectConfiguration = .disallow
            configuration.timeout = .init(connect: policy.connectTimeout, read: policy.readTimeout)
            configuration.decompression = .disabled
            configuration.dnsOverride = [host: address.description]
            // A host that refuses the connection is said to be unreachable at once, not after the
            // client has tried again until the connect timeout (the one address checked is all
            // there is to try).
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
            do {
                var request = HTTPClientRequest(url: current.absoluteString)
                request.headers.add(name: "User-Agent", value: policy.userAgent)
                request.headers.add(name: "Accept", value: accept)
                for (name, value) in extra { request.headers.add(name: name, value: value) }
                let response = try await client.execute(request, timeout: policy.headTimeout)
                let code = Int(response.status.code)
                if (300...399).contains(code), code != 304, let location = response.headers.first(name: "Location") {
                    guard let next = URL(string: location, relativeTo: current)?.absoluteURL else { throw OutsideFetchError.badURL(location) }
                    try? await client.shutdown()
                    current = next
                    continue
                }
                let conditional = extra["If-None-Match"] != nil || extra["If-Modified-Since"] != nil
                guard (200...299).contains(code) || (code == 416 && extra["Range"] != nil) || (code == 304 && conditional) else {
                    throw OutsideFetchError.status(code, host: host)
                }
                let result = try await read(response, current)
                try? await client.shutdown()
                return result
            } catch {
                try? await client.shutdown()
                throw Self.plain(error, host: host)
            }
        }
        throw OutsideFetchError.tooManyRedirects(policy.maxRedirects)
    }

    /// The client's and the network's errors as `OutsideFetchError`s.
    static func plain(_ error: any Error, host: String) -> any Error {
        if error is OutsideFetchError || error is APIError { return error }
        if let client = error as? HTTPClientError {
            if [.connectTimeout, .readTimeout, .deadlineExceeded].contains(client) { return OutsideFetchError.timeout(host: host) }
            return OutsideFetchError.unreachable(host: host)
        }
        if error is CancellationError { return error }
        return OutsideFetchError.unreachable(host: host)
    }
}

/// One chunk at a time from a producer to a consumer: `put` waits until the chunk is taken.
final class Handoff: @unchecked Sendable {
    /// The answer's status and headers, once they came (or why they never will).
    actor Head {
        private var result: Result<(Int, HTTPHeaders), any Error>?
        private var waiting: [CheckedContinuation<(Int, HTTPHeaders), any Error>] = []

        func set(_ value: Result<(Int, HTTPHeaders), any Error>) {
            guard result == nil else { return }
            result = value
            for continuation in waiting { continuation.resume(with: value) }
            waiting = []
        }

        func value() async throws -> (Int, HTTPHeaders) {
            if let result { return try result.get() }
            return try await withCheckedThrowingContinuation { waiting.append($0) }
        }
    }

    private actor State {
        var chunk: ByteBuffer?
        var done = false
        var failure: (any Error)?
        var cancelled = false
        var taker: CheckedContinuation<ByteBuffer?, any Error>?
        var putter: CheckedContinuation<Bool, Never>?

        func put(_ buffer: ByteBuffer) async -> Bool {
            if cancelled { return false }
            if let taker { self.taker = nil; taker.resume(returning: buffer) ; return !cancelled }
            chunk = buffer
            return await withCheckedContinuation { putter = $0 }
        }

        func finish(_ error: (any Error)?) {
            done = true
            failure = error
            if let taker { self.taker = nil; if let error { taker.resume(throwing: error) } else { taker.resume(returning: nil) } }
        }

        func take() async throws -> ByteBuffer? {
            if let buffer = chunk {
                chunk = nil
                putter?.resume(returning: true)
                putter = nil
                return buffer
            }
            if done { if let failure { throw failure }; return nil }
            return try await withCheckedThrowingContinuation { taker = $0 }
        }

        func cancel() {
            cancelled = true
            putter?.resume(returning: false)
            putter = nil
        }
    }

    private let state = State()
    var producer: Task<Void, Never>?

    func put(_ buffer: ByteBuffer) async -> Bool { await state.put(buffer) }
    func finish(_ error: (any Error)?) async { await state.finish(error) }
    /// The next chunk, or nil at the end.
    func next() async throws -> ByteBuffer? { try await state.take() }
    /// The consumer stopped: the producer ends at its next chunk.
    func cancel() async {
        await state.cancel()
        producer?.cancel()
    }
}

/// Outside fetches for the command line (`reverie feed parse URL`), through the same guard.
public enum OutsideFetch {
    /// The body at `url`, at most `maxBytes`; private addresses only with `allowPrivate`.
    /// Errors say what went wrong in a sentence.
    public static func data(from url: URL, maxBytes: Int, allowPrivate: Bool, accept: String) async throws
        -> (data: Data, finalURL: URL, contentType: String?) {
        let client = GuardedHTTPClient(policy: .init(allowPrivate: allowPrivate), group: MultiThreadedEventLoopGroup.singleton)
        let answer = try await client.get(url, accept: accept, maxBytes: maxBytes)
        return (Data(answer.body.readableBytesView), answer.url, answer.headers.first(name: "Content-Type"))
    }
}
