import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Through the HTTP API of a real `reverie serve` (release build, its own data directory): how
/// long a render request takes when the render is already in the cache, beside the cheapest
/// authenticated-free request the server has (`GET /api/health`) on the same server.
enum APIBench {
    struct Figures {
        var cacheHitMedian: Double
        var cacheHitP95: Double
        var healthMedian: Double
        /// Compositions searched, and the median time of a search by a lyric word.
        var compositions: Int
        var searchMedian: Double
        var searchHits: Int
    }

    static func run(binary: String, requests: Int = 50) async throws -> Figures {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("reverie-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: binary)
        server.arguments = ["serve", "--port", "0", "--data-dir", data.path]
        var environment = ProcessInfo.processInfo.environment
        environment["LOG_LEVEL"] = "error"
        environment.removeValue(forKey: "DATABASE_URL")
        server.environment = environment
        let output = Pipe()
        server.standardOutput = output
        try server.run()
        defer { server.terminate(); server.waitUntilExit() }

        // "Reverie 0.1.0 is serving http://127.0.0.1:PORT …"
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchError("the server stopped before serving") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let match = text.firstMatch(of: /(http:\/\/[0-9.]+:[0-9]+)/) else { throw BenchError("no URL in: \(text)") }
        let base = String(match.1)

        let session = URLSession(configuration: .ephemeral)
        func send(_ method: String, _ path: String, _ body: [String: Any]? = nil, cookie: String? = nil) async throws -> (Int, [String: Any], HTTPURLResponse) {
            var request = URLRequest(url: URL(string: base + path)!)
            request.httpMethod = method
            request.httpShouldHandleCookies = false
            if let body {
                request.httpBody = try JSONSerialization.data(withJSONObject: body)
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
            if let cookie { request.setValue("reverie_session=\(cookie)", forHTTPHeaderField: "Cookie") }
            let (data, response) = try await session.data(for: request)
            let http = response as! HTTPURLResponse
            return (http.statusCode, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:], http)
        }

        let (_, _, setup) = try await send("POST", "/api/setup", ["username": "bench", "password": "bench-password"])
        guard let header = setup.value(forHTTPHeaderField: "Set-Cookie"),
              let cookie = header.firstMatch(of: /reverie_session=([^;]+)/)?.1 else { throw BenchError("setup gave no session") }
        let render: [String: Any] = ["text": "Rest here a moment. (1s) Let the evening be quiet.", "voice": "en-us", "format": "m4a"]
        var (status, body, _) = try await send("POST", "/api/speech/renders", render, cookie: String(cookie))
        guard status == 201 || status == 202, let id = body["id"] as? String else { throw BenchError("render refused: \(status) \(body)") }
        while (body["status"] as? String) == "rendering" {
            try await Task.sleep(for: .milliseconds(50))
            (_, body, _) = try await send("GET", "/api/speech/renders/\(id)", cookie: String(cookie))
        }
        guard (body["status"] as? String) == "done" else { throw BenchError("render failed: \(body)") }

        func timed(_ action: () async throws -> Void) async throws -> [Double] {
            var times: [Double] = []
            for _ in 0..<requests {
                let start = Date()
                try await action()
                times.append(Date().timeIntervalSince(start) * 1000)
            }
            return times.sorted()
        }
        let hits = try await timed {
            let (status, body, _) = try await send("POST", "/api/speech/renders", render, cookie: String(cookie))
            guard status == 201, body["status"] as? String == "done" else { throw BenchError("not a cache hit: \(status)") }
        }
        let health = try await timed { _ = try await send("GET", "/api/health") }

        // Search among thousands of songs: 3,000 of them, 1 in 100 with the word "lighthouse".
        let words = ["river", "night", "window", "summer", "letter", "station", "garden", "silver", "morning", "highway"]
        let count = 3000
        for index in 0..<count {
            let a = words[index % words.count], b = words[(index / words.count) % words.count]
            let extra = index % 100 == 7 ? " by the lighthouse" : ""
            let lyrics = "Song \(index) about the \(a)\nAnd the \(b) in the rain\(extra)\nWe sang until the morning came\nAnd then we sang again"
            let (status, _, _) = try await send("POST", "/api/compositions", ["title": "Song \(index)", "lyrics": lyrics], cookie: String(cookie))
            guard status == 201 else { throw BenchError("creating a composition answered \(status)") }
        }
        let searches = try await timed {
            let (status, _, response) = try await send("GET", "/api/compositions?q=lighthouse", cookie: String(cookie))
            guard status == 200 else { throw BenchError("search answered \(status)") }
            _ = response
        }
        var request = URLRequest(url: URL(string: base + "/api/compositions?q=lighthouse")!)
        request.setValue("reverie_session=\(cookie)", forHTTPHeaderField: "Cookie")
        let (listing, _) = try await session.data(for: request)
        let found = ((try? JSONSerialization.jsonObject(with: listing)) as? [Any])?.count ?? 0
        return Figures(cacheHitMedian: hits[hits.count / 2], cacheHitP95: hits[hits.count * 95 / 100], healthMedian: health[health.count / 2],
                       compositions: count, searchMedian: searches[searches.count / 2], searchHits: found)
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
