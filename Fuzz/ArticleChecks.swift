// What every article the Reader makes must hold, checked by its fuzz harnesses (extract, epub):
// spans inside the text, chapters covering it end to end, links only to web or mail addresses.
import Foundation

func checkArticle(_ article: ExtractedArticle) {
    let length = article.text.utf16.count
    for span in article.spans where span.location < 0 || span.length <= 0 || span.location + span.length > length {
        fatalError("span \(span) outside text of \(length)")
    }
    var end = 0
    for chapter in article.chapters {
        if chapter.location != end { fatalError("chapters leave a gap at \(end): \(article.chapters)") }
        end = chapter.location + chapter.length
    }
    if end != length { fatalError("chapters end at \(end), text at \(length)") }
    for span in article.spans where span.style == .link {
        guard let url = span.url, url.hasPrefix("http://") || url.hasPrefix("https://") || url.hasPrefix("mailto:") else { fatalError("link \(String(describing: span.url))") }
    }
}
