// swift-tools-version: 6.1
import PackageDescription

// An HTTP server around the engine: its own package, so that users of the library never resolve a
// web framework. It depends on the library by path.
let package = Package(
    name: "LocationServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "location-server", targets: ["LocationServer"]),
    ],
    dependencies: [
        // Named, because a path dependency is otherwise known by its folder's name.
        .package(name: "LocationEngine", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        // Bearer tokens: the request context's identity, the Authorization header read, the authenticator middleware.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        // The fences and their events outlive the process in SQLite (the system's libsqlite3).
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        // Property-based tests of the query parser.
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
    ],
    targets: [
        .executableTarget(
            name: "LocationServer",
            dependencies: [
                "CHeapUsage",
                .product(name: "LocationEngine", package: "LocationEngine"),
                .product(name: "LocationSources", package: "LocationEngine"),
                .product(name: "LocationSourcesGeoClue", package: "LocationEngine"),
                .product(name: "SyntheticGPS", package: "LocationEngine"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "NIOCore", package: "swift-nio"),
                // pthread-based locks, which ThreadSanitizer sees (Synchronization.Mutex it does not, on Linux).
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // glibc's heap figures (mallinfo2), which Swift's Glibc module does not export.
        .target(name: "CHeapUsage"),
        .testTarget(
            name: "LocationServerTests",
            dependencies: [
                "LocationServer",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "LocationEngineTestKit", package: "LocationEngine"),
                .product(name: "LocationSourcesGeoClue", package: "LocationEngine"),
                .product(name: "SyntheticGPS", package: "LocationEngine"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // The in-process timing harness's connections (the router tests' own kind).
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
