// swift-tools-version:6.1
import PackageDescription

/// The engines' settings: optimized (`-O`) in debug builds as in release ones. Tests still reach
/// their internals (`@testable import`): SwiftPM's debug builds pass `-enable-testing` too.
let optimized: [SwiftSetting] = [.unsafeFlags(["-O"])]

let package = Package(
    name: "reverie",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "reverie", targets: ["reverie"]),
        .library(name: "ReverieAPI", targets: ["ReverieAPI"]),
        .library(name: "ReverieServer", targets: ["ReverieServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/vapor/fluent.git", from: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.9.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/pointfreeco/swift-clocks.git", from: "1.1.1"),
    ],
    targets: [
        // MARK: - Engines
        // Optimized in every build, debug too: their DSP, parsing and ranking run in every test and
        // in the server the browser tests drive, and unoptimized they took most of the suite's time.
        .target(name: "Installation", swiftSettings: optimized),
        .target(name: "SpokenScript", swiftSettings: optimized),
        .target(name: "AudioRender", swiftSettings: optimized),
        .target(name: "Rhymes", dependencies: ["Installation"], swiftSettings: optimized),
        .target(name: "Breathing", dependencies: ["AudioRender"], resources: [.copy("Resources/meditation.json"), .copy("Resources/narration.json")], swiftSettings: optimized),
        .target(name: "SleepLibrary", dependencies: ["Playback"], resources: [.copy("Resources/catalog.json"), .copy("Resources/scripts")], swiftSettings: optimized),
        .target(name: "Playback", swiftSettings: optimized),
        .target(name: "MediaFormats", swiftSettings: optimized),
        .target(name: "Bedside", dependencies: ["SpokenScript"], resources: [.copy("Resources/bedside")], swiftSettings: optimized),
        .systemLibrary(name: "CESpeakNG", pkgConfig: "espeak-ng", providers: [.apt(["libespeak-ng-dev"])]),
        .systemLibrary(name: "CReverieZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CReverieXML", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        .target(name: "Feeds", dependencies: ["CReverieXML"], swiftSettings: optimized),
        .target(name: "Archives", dependencies: ["CReverieZlib"], swiftSettings: optimized),
        .target(name: "Reader", dependencies: ["CReverieXML", "AudioRender", "Feeds", "Archives"], swiftSettings: optimized),
        .target(name: "Directories", dependencies: ["Feeds", "ReverieAPI"], swiftSettings: optimized),
        .target(name: "Backups", dependencies: ["Archives", .product(name: "Crypto", package: "swift-crypto"), .product(name: "ZIPFoundation", package: "ZIPFoundation")], swiftSettings: optimized),
        .target(name: "Speech", dependencies: ["Installation", "SpokenScript", "AudioRender", "CESpeakNG", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: optimized),

        // MARK: - Shared types
        .target(name: "ReverieAPI"),

        // MARK: - Server
        .target(
            name: "ReverieServer",
            dependencies: [
                "ReverieAPI",
                "Installation",
                "Speech",
                "Breathing",
                "Rhymes",
                "Playback",
                "SleepLibrary",
                "Bedside",
                "MediaFormats",
                "Feeds",
                "Directories",
                "Reader",
                "Archives",
                "Backups",
                "CReverieZlib",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: - Command-line tool
        .executableTarget(
            name: "reverie",
            dependencies: [
                "Rhymes",
                "SleepLibrary",
                "Bedside",
                "Playback",
                "MediaFormats",
                "Feeds",
                "Reader",
                "ReverieAPI",
                "ReverieServer",
                "Archives",
                "Backups",
                "Speech",
                "SpokenScript",
                "AudioRender",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // MARK: - Benchmarks (`make bench`)
        .executableTarget(name: "speech-bench", dependencies: ["Speech", "AudioRender"], path: "Benchmarks/SpeechBench"),
        .executableTarget(name: "rhymes-bench", dependencies: ["Rhymes", "Speech"], path: "Benchmarks/RhymesBench"),

        // MARK: - Tests
        // The case files in Tests/Shared that engines and their web twins are both held to.
        .target(name: "SharedCases", path: "Tests/SharedCases"),
        .testTarget(name: "InstallationTests", dependencies: ["Installation"]),
        .testTarget(name: "SpokenScriptTests", dependencies: ["SpokenScript"]),
        .testTarget(name: "AudioRenderTests", dependencies: ["AudioRender", "SharedCases"]),
        .testTarget(name: "BreathingTests", dependencies: ["Breathing", "SharedCases"]),
        .testTarget(name: "RhymesTests", dependencies: ["Rhymes", "Speech", "SharedCases"]),
        .testTarget(name: "SleepLibraryTests", dependencies: ["SleepLibrary", "SpokenScript"]),
        .testTarget(name: "PlaybackTests", dependencies: ["Playback", "SharedCases"]),
        .testTarget(name: "MediaFormatsTests", dependencies: ["MediaFormats"]),
        .testTarget(name: "FeedsTests", dependencies: ["Feeds"], exclude: ["Fixtures"]),
        .testTarget(name: "ArchivesTests", dependencies: ["Archives", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(name: "ReaderTests", dependencies: ["Reader", "Archives", "AudioRender", .product(name: "ZIPFoundation", package: "ZIPFoundation")], exclude: ["Fixtures"]),
        .testTarget(name: "BedsideTests", dependencies: ["Bedside", "SpokenScript", "SharedCases"]),
        .testTarget(name: "SpeechTests", dependencies: ["Speech", "SpokenScript", "AudioRender", "Reader", "SleepLibrary", "SharedCases"]),
        .testTarget(name: "BackupsTests", dependencies: ["Backups", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(name: "ReverieAPITests", dependencies: ["ReverieAPI", "SharedCases"]),
        .testTarget(name: "DirectoriesTests", dependencies: ["Directories", "ReverieAPI"]),
        .testTarget(
            name: "ReverieServerTests",
            dependencies: [
                "ReverieServer",
                "ReverieAPI",
                "Archives",
                "Backups",
                "Feeds",
                "Speech",
                "AudioRender",
                "Breathing",
                "Rhymes",
                "SharedCases",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "VaporTesting", package: "vapor"),
                .product(name: "Clocks", package: "swift-clocks"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(name: "reverieTests", dependencies: ["reverie", "AudioRender"]),
    ],
    swiftLanguageModes: [.v6]
)
