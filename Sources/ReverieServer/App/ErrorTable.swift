import Archives
import AudioRender
import Feeds
import MediaFormats
import Reader
import Rhymes
import Speech
import SpokenScript
import Vapor

/// The one table from the errors engines, runtime parts and features throw to what the API
/// answers: a status, a stable code and a sentence a person can act on. `APIErrorMiddleware`
/// answers requests with it and `JobWorkers` keeps a failed job's message from it, so an error
/// reads the same wherever it surfaces. Routes throw engine errors as they are; where the same
/// error means something else in a place (a feed file from an outside server is its fault, not
/// the person's), the route says so with `ErrorContext`, and the table still words it.
enum ErrorTable {
    /// The answer for `error`, or nil when the table does not know it (the middleware then
    /// decides: Vapor's own errors, decoding, a busy database, a 500).
    static func apiError(for error: any Error) -> APIError? {
        switch error {
        case let error as APIError: error
        case let error as ErrorContext: error.apiError
        case let error as OutsideFetchError: error.apiError
        case let error as SpokenScriptError: APIError(.badRequest, code: "invalid_script", error.description)
        case let error as SpeechError: speech(error)
        case let error as AudioRenderError: audio(error)
        case let error as MediaFormatsError: media(error)
        case let error as ArchiveError: archive(error)
        case let error as ReaderError: reader(error)
        case let error as FeedError: APIError(.unprocessableEntity, code: "not_a_feed", error.description)
        case let error as RhymesError: APIError(.serviceUnavailable, code: "rhymes_unavailable", error.description)
        case let error as JobError: APIError(.unprocessableEntity, code: "invalid_job", error.description)
        case let error as AccountError: account(error)
        case let error as LibraryError: APIError(.notFound, code: "not_found", error.description)
        case let error as WindDownError: windDown(error)
        case let error as PodcastError: podcast(error)
        case let error as ArticleError: article(error)
        case let error as LibriVoxError: librivox(error)
        case let error as RadioError: radio(error)
        case let error as StoreError: APIError(.internalServerError, code: "database", error.description)
        default: nil
        }
    }

    /// The sentence for a person (a failed job's message): the table's, an abort's reason, or
    /// `fallback` with the error.
    static func message(for error: any Error, fallback: String) -> String {
        if let answer = apiError(for: error) { return answer.message }
        if let abort = error as? any AbortError { return abort.reason }
        return "\(fallback): \(error)"
    }

    // MARK: - Features

    static func account(_ error: AccountError) -> APIError {
        let (status, code): (HTTPResponseStatus, String) = switch error {
        case .emptyUsername, .usernameTooLong, .usernameCharacters: (.badRequest, "invalid_username")
        case .passwordTooShort: (.badRequest, "weak_password")
        case .passwordTooLong: (.badRequest, "invalid_password")
        case .usernameTaken: (.conflict, "username_taken")
        case .accountGone: (.unauthorized, "unauthorized")
        case .wrongPassword: (.forbidden, "wrong_password")
        case .samePassword: (.badRequest, "same_password")
        case .noSuchAccount: (.notFound, "not_found")
        }
        return APIError(status, code: code, error.description)
    }

    static func windDown(_ error: WindDownError) -> APIError {
        let (status, code): (HTTPResponseStatus, String) = switch error {
        case .noSuchItem: (.notFound, "not_found")
        case .comingSoon: (.notFound, "coming_soon")
        case .unsupportedContainer: (.unsupportedMediaType, "not_audio")
        case .tooLong: (.unprocessableEntity, "too_long")
        case .liveAudioUnwritable: (.internalServerError, "live_audio")
        case .audioFailed: (.conflict, "audio_failed")
        }
        return APIError(status, code: code, error.description)
    }

    static func podcast(_ error: PodcastError) -> APIError {
        switch error {
        case .episodeGone: APIError(.notFound, code: "not_found", error.description)
        case .noAudio: APIError(.unprocessableEntity, code: "no_audio", error.description)
        }
    }

    static func article(_ error: ArticleError) -> APIError {
        switch error {
        case .uploadGone: APIError(.gone, code: "upload_gone", error.description)
        case .nothingToRead: APIError(.badRequest, code: "invalid_job", error.description)
        }
    }

    static func librivox(_ error: LibriVoxError) -> APIError {
        switch error {
        case .bookGone: APIError(.notFound, code: "not_found", error.description)
        case .unreadableCatalog: APIError(.badGateway, code: "outside_unreadable", error.description)
        }
    }

    static func radio(_ error: RadioError) -> APIError {
        switch error {
        case .unreadablePlaylist, .noPlayableStream, .playlistLoop: APIError(.badGateway, code: "hls_unreadable", error.description)
        case .encrypted: APIError(.unprocessableEntity, code: "hls_encrypted", error.description)
        case .segmentPassed: APIError(.notFound, code: "not_found", error.description)
        }
    }

    // MARK: - Engines

    static func speech(_ error: SpeechError) -> APIError {
        switch error {
        case .unknownVoice: APIError(.badRequest, code: "unknown_voice", error.description)
        case .invalidRate: APIError(.badRequest, code: "invalid_rate", error.description)
        case .cannotFit: APIError(.unprocessableEntity, code: "cannot_fit", error.description)
        case .engineUnavailable, .workerDied, .synthesisFailed: APIError(.serviceUnavailable, code: "speech_unavailable", error.description)
        }
    }

    static func audio(_ error: AudioRenderError) -> APIError? {
        switch error {
        case .notAudio, .malformedWAV: APIError(.unsupportedMediaType, code: "not_audio", error.description)
        case .tooQuietToMeasure:
            APIError(.unprocessableEntity, code: "silent_audio", "The file is silent (or under half a second); there is nothing to level.")
        case .toolMissing, .toolFailed: nil   // the server's own fault: a 500, logged
        }
    }

    static func media(_ error: MediaFormatsError) -> APIError {
        switch error {
        case .unsupportedFormat:
            APIError(.unsupportedMediaType, code: "not_audio", "This is not an audio file Reverie can read. Upload an MP3, M4A or M4B file.")
        case .noAudio:
            APIError(.unsupportedMediaType, code: "no_audio", "The file holds no audio track. Upload the sound itself as MP3, M4A or M4B.")
        case .malformed, .tooLarge, .unreadable:
            APIError(.unprocessableEntity, code: "damaged_audio", error.description)
        }
    }

    static func archive(_ error: ArchiveError) -> APIError {
        switch error {
        case let .tooLarge(limit): MediaUploadError.tooLarge(limit: limit)
        case .unsafePath, .bomb: APIError(.unprocessableEntity, code: "unsafe_archive", error.description)
        default: APIError(.unprocessableEntity, code: "damaged_archive", error.description)
        }
    }

    static func reader(_ error: ReaderError) -> APIError {
        switch error {
        case .noArticle: APIError(.unprocessableEntity, code: "no_article", error.description)
        case .tooLarge: APIError(.payloadTooLarge, code: "too_large", error.description)
        default: APIError(.unprocessableEntity, code: "unreadable_document", error.description)
        }
    }
}

/// An error in a place that answers it its own way: what was being read (put before the
/// table's sentence) and, where it differs, the status and code. The sentence itself stays the
/// table's.
struct ErrorContext: Error, CustomStringConvertible {
    let underlying: any Error
    var status: HTTPResponseStatus?
    var code: String?
    /// Goes before the sentence: "The episode's transcript could not be read".
    var lead: String?

    /// For the command line, which words errors itself: the lead, then the error's own words.
    var description: String {
        let words = (underlying as? any CustomStringConvertible)?.description ?? "\(underlying)"
        return lead.map { "\($0): \(words)" } ?? words
    }

    var apiError: APIError? {
        guard var answer = ErrorTable.apiError(for: underlying) else { return nil }
        if let status { answer.status = status }
        if let code { answer.code = code }
        if let lead { answer.message = "\(lead): \(answer.message)" }
        return answer
    }
}

extension Error {
    /// This error as `place` answers it (see `ErrorContext`).
    func answered(status: HTTPResponseStatus? = nil, code: String? = nil, lead: String? = nil) -> ErrorContext {
        ErrorContext(underlying: self, status: status, code: code, lead: lead)
    }
}
