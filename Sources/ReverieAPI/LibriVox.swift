import Foundation

/// A LibriVox book as the catalog describes it: its sections are its chapters.
public struct LibriVoxBookInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var title: String
    public var authors: [String]
    /// Plain text, at most 1,000 characters.
    public var description: String?
    public var language: String?
    /// The whole book's length in seconds.
    public var seconds: Double
    /// The book's page on LibriVox.
    public var pageURL: String?
    public var coverURL: String?
    public var sections: [LibriVoxSectionInfo]

    public init(id: Int, title: String, authors: [String], description: String?, language: String?, seconds: Double,
                pageURL: String?, coverURL: String?, sections: [LibriVoxSectionInfo]) {
        self.id = id
        self.title = title
        self.authors = authors
        self.description = description
        self.language = language
        self.seconds = seconds
        self.pageURL = pageURL
        self.coverURL = coverURL
        self.sections = sections
    }
}

/// One section (chapter) of a LibriVox book, with who read it.
public struct LibriVoxSectionInfo: Codable, Sendable, Equatable {
    public var number: Int
    public var title: String
    public var readers: [String]
    public var seconds: Double
    /// The section's MP3 on LibriVox's servers.
    public var listenURL: String

    public init(number: Int, title: String, readers: [String], seconds: Double, listenURL: String) {
        self.number = number
        self.title = title
        self.readers = readers
        self.seconds = seconds
        self.listenURL = listenURL
    }
}

/// `GET /api/librivox/search`.
public struct LibriVoxSearchResult: Codable, Sendable, Equatable {
    public var books: [LibriVoxBookInfo]

    public init(books: [LibriVoxBookInfo]) {
        self.books = books
    }
}

/// `POST /api/librivox/books`: which LibriVox book to add.
public struct LibriVoxAddRequest: Codable, Sendable, Equatable {
    public var id: Int

    public init(id: Int) {
        self.id = id
    }
}

/// A job: long work the server does in the background (a LibriVox download), with its progress.
public struct JobInfo: Codable, Sendable, Equatable {
    public var id: String
    /// `librivox.download`.
    public var kind: String
    public var title: String
    /// `queued`, `running`, `done` or `failed`.
    public var status: String
    /// 0…1.
    public var progress: Double
    /// What it is doing, or why it failed.
    public var message: String?
    /// When done: the library item it made.
    public var itemID: String?
    public var createdAt: Date?

    public init(id: String, kind: String, title: String, status: String, progress: Double, message: String?, itemID: String?, createdAt: Date?) {
        self.id = id
        self.kind = kind
        self.title = title
        self.status = status
        self.progress = progress
        self.message = message
        self.itemID = itemID
        self.createdAt = createdAt
    }
}

/// `GET /api/jobs`: the person's latest jobs, newest first.
public struct JobList: Codable, Sendable, Equatable {
    public var jobs: [JobInfo]

    public init(jobs: [JobInfo]) {
        self.jobs = jobs
    }
}
