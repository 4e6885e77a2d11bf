import ArgumentParser
import ReverieAPI

/// `reverie`: the server and the tools around it.
@main
struct Reverie: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverie",
        abstract: "Reverie, a self-hosted personal audio companion.",
        version: ReverieVersion.current,
        subcommands: [Serve.self, User.self, Speak.self, Voices.self, RhymesCommand.self, LyricsCommand.self, WindDownCommand.self, BedsideCommand.self, ChaptersCommand.self, LibraryCommand.self, FeedCommand.self, ExtractCommand.self, TLSCommand.self, BackupCommand.self, RestoreCommand.self],
        defaultSubcommand: nil
    )
}
