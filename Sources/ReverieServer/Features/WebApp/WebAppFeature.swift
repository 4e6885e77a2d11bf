import Vapor

/// The web app's own documents: the API's description and the install manifest. (Its files are
/// answered by `WebAppMiddleware`, after every route is known.)
struct WebAppFeature: Feature {
    let routes: [any RouteCollection]

    init(webDirectory: String) {
        routes = [OpenAPIController(webDirectory: webDirectory), ManifestController(webDirectory: webDirectory)]
    }
}
