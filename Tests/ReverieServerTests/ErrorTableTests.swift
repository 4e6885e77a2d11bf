import AudioRender
import Feeds
import Foundation
import MediaFormats
import Reader
import ReverieAPI
@testable import ReverieServer
import Speech
import SpokenScript
import Archives
import Testing

/// The one table from errors to answers: what a person is told, whichever route or job met it.
@Suite("Errors mapped once")
struct ErrorTableTests {
    @Test("each engine's errors get a status, a stable code and the engine's own sentence")
    func engines() throws {
        let cases: [(any Error, Int, String)] = [
            (SpokenScriptError.nothingToSay, 400, "invalid_script"),
            (SpeechError.unknownVoice("nobody"), 400, "unknown_voice"),
            (SpeechError.engineUnavailable("no piper"), 503, "speech_unavailable"),
            (AudioRenderError.notAudio("no stream"), 415, "not_audio"),
            (AudioRenderError.tooQuietToMeasure, 422, "silent_audio"),
            (MediaFormatsError.unsupportedFormat, 415, "not_audio"),
            (MediaFormatsError.malformed("moov box cut short"), 422, "damaged_audio"),
            (ArchiveError.bomb("a.mp3"), 422, "unsafe_archive"),
            (ArchiveError.tooLarge(limit: 1024), 413, "upload_too_large"),
            (ArchiveError.noMP3s, 422, "damaged_archive"),
            (ReaderError.noArticle, 422, "no_article"),
            (ReaderError.tooLarge, 413, "too_large"),
            (FeedError.entitiesRefused, 422, "not_a_feed"),
            (OutsideFetchError.privateAddress(host: "x", address: "10.0.0.1"), 400, "private_address"),
            (AccountError.usernameTaken("ada"), 409, "username_taken"),
            (AccountError.wrongPassword, 403, "wrong_password"),
            (LibraryError.noOwner, 404, "not_found"),
            (WindDownError.comingSoon("Rain"), 404, "coming_soon"),
            (JobError.unknownKind("future.kind"), 422, "invalid_job"),
        ]
        for (error, status, code) in cases {
            let answer = try #require(ErrorTable.apiError(for: error), "\(error)")
            #expect(Int(answer.status.code) == status && answer.code == code, "\(error) → \(answer.status.code) \(answer.code)")
            #expect(!answer.message.isEmpty)
        }
        // The server's own faults are not the table's: they stay 500s, logged.
        #expect(ErrorTable.apiError(for: AudioRenderError.toolMissing("ffmpeg")) == nil)
        #expect(ErrorTable.apiError(for: CocoaError(.fileNoSuchFile)) == nil)
    }

    @Test("a place that reads the same error differently keeps the table's words, with what it was reading before them")
    func context() throws {
        let error = FeedError.malformed("no root element")
        let plain = try #require(ErrorTable.apiError(for: error))
        let outside = try #require(ErrorTable.apiError(for: error.answered(status: .badGateway, code: "transcript_unreadable",
                                                                          lead: "The episode's transcript could not be read")))
        #expect(outside.status == .badGateway && outside.code == "transcript_unreadable")
        #expect(outside.message == "The episode's transcript could not be read: \(plain.message)")
        // The command line reads it the same way.
        #expect(String(describing: error.answered(lead: "feed.xml")) == "feed.xml: \(error.description)")
        #expect(ErrorTable.message(for: JobError.unreadableInput(.articleImport), fallback: "The job failed")
                == "This job's input cannot be read as a article.import job.")
    }
}
