import Foundation
import Vapor

/// Accounts: first-run setup, sign-in and sign-out, personal tokens, the owner's people and the
/// removal of a person with everything they own.
struct AccountsFeature: Feature {
    let routes: [any RouteCollection]

    init(users: Store<any UserRepository>, tokens: Store<any AuthTokenRepository>, speechRenders: Store<any SpeechRenderRepository>,
         podcasts: Store<any PodcastRepository>, library: LibraryStore, meditationAudio: MeditationAudio, speech: SpeechJobs, artwork: ArtworkStore,
         hashing: PasswordHashing, throttle: LoginThrottle, config: ServerConfig, now: @escaping @Sendable () -> Date) {
        let removal = AccountRemoval(users: users, speechRenders: speechRenders, podcasts: podcasts, library: library,
                                     meditationAudio: meditationAudio, speech: speech, artwork: artwork, config: config)
        routes = [
            AuthController(users: users, tokens: tokens, hashing: hashing, throttle: throttle, sessionLifetime: config.sessionLifetime,
                           secureCookies: config.secureCookies, front: config.front, now: now),
            TokenController(tokens: tokens),
            UserController(users: users, hashing: hashing, removal: removal),
        ]
    }
}
