import Vapor

/// `GET /openapi.yaml`: the API description, kept in step with the routes by a test.
struct OpenAPIController: RouteCollection {
    let webDirectory: String

    func boot(routes: any RoutesBuilder) throws {
        routes.get("openapi.yaml", use: document)
    }

    func document(req: Request) async throws -> Response {
        let path = (webDirectory as NSString).appendingPathComponent("openapi.yaml")
        let response = try await req.fileio.asyncStreamFile(at: path)
        response.headers.contentType = HTTPMediaType(type: "application", subType: "yaml", parameters: ["charset": "utf-8"])
        return response
    }
}
