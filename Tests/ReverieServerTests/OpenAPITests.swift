import Foundation
@testable import ReverieServer
import Testing
import Vapor

@Suite("OpenAPI document")
struct OpenAPITests {
    /// `METHOD /path/{param}` for every operation in `Web/openapi.yaml`.
    static func documentedOperations() throws -> Set<String> {
        let text = try String(contentsOfFile: repositoryWebDirectory + "/openapi.yaml", encoding: .utf8)
        var operations = Set<String>()
        var inPaths = false
        var currentPath: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") { inPaths = true; continue }
            if inPaths, let first = line.first, first != " ", first != "#" { inPaths = false }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let path = currentPath {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "post", "put", "patch", "delete", "head", "options"].contains(String(key)) {
                    operations.insert("\(key.uppercased()) \(path)")
                }
            }
        }
        return operations
    }

    @Test("every registered route is documented and every documented route exists")
    func routesMatchDocument() async throws {
        try await withTestApp(.sqlite) { client in
            let registered = Set(client.app.routes.all.map { route in
                let path = route.path.map { component -> String in
                    switch component {
                    case let .constant(text): text
                    case let .parameter(name): "{\(name)}"
                    case .anything: "*"
                    case .catchall: "**"
                    }
                }.joined(separator: "/")
                return "\(route.method.rawValue) /\(path)"
            })
            let documented = try Self.documentedOperations()
            #expect(!documented.isEmpty)
            #expect(registered.subtracting(documented).sorted() == [], "routes missing from openapi.yaml")
            #expect(documented.subtracting(registered).sorted() == [], "openapi.yaml names routes that do not exist")
        }
    }

    @Test("GET /openapi.yaml serves the document as YAML")
    func served() async throws {
        try await withTestApp(.sqlite) { client in
            let reply = try await client.send(.GET, "/openapi.yaml")
            #expect(reply.status == .ok)
            #expect(reply.headers.contentType?.subType == "yaml")
            #expect(reply.text.hasPrefix("openapi: 3."))
        }
    }
}
