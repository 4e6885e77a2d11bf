import Foundation

/// `POST /api/articles`: a page to fetch (`url`), the page as the person's browser has it (`url`
/// with `html`, from the bookmarklet), or text to keep (`text`, with a `title`).
public struct ArticleSaveRequest: Codable, Sendable, Equatable {
    public var url: String?
    public var text: String?
    public var title: String?
    /// The page's document as the browser built it (after its scripts ran, with the person's own
    /// sign-in); read instead of fetching `url`.
    public var html: String?
    public init(url: String? = nil, text: String? = nil, title: String? = nil, html: String? = nil) {
        (self.url, self.text, self.title, self.html) = (url, text, title, html)
    }
}
