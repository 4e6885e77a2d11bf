import Vapor

/// What `configure` sets up once and requests share.
struct AppServices: Sendable {
    let config: ServerConfig
    let hashing: PasswordHashing
    let throttle: LoginThrottle
    let now: @Sendable () -> Date
}

extension Application {
    private struct AppServicesKey: StorageKey {
        typealias Value = AppServices
    }

    var services: AppServices {
        get {
            guard let services = storage[AppServicesKey.self] else { fatalError("configure(_:_:) has not run") }
            return services
        }
        set { storage[AppServicesKey.self] = newValue }
    }

    /// Account creation and password checks on the application's database.
    public var accounts: AccountService {
        AccountService(users: repositories.users, hasher: services.hashing)
    }
}

extension Request {
    var services: AppServices { application.services }
    var accounts: AccountService { AccountService(users: repositories.users, hasher: services.hashing) }
}
