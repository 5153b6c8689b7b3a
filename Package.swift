// swift-tools-version: 6.1
import Foundation
import PackageDescription

// locbench links jemalloc (Debian's libjemalloc-dev) and reads exact heap figures through mallctl.
// Without it, locbench still builds and falls back to glibc's mallinfo2 (see `locbench --help`).
let jemallocAvailable = ["/usr/include/jemalloc/jemalloc.h", "/usr/local/include/jemalloc/jemalloc.h"]
    .contains { FileManager.default.fileExists(atPath: $0) }

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "LocationEngine",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LocationEngine", targets: ["LocationEngine"]),
        .library(name: "LocationEngineTestKit", targets: ["LocationEngineTestKit"]),
        .library(name: "NMEA", targets: ["NMEA"]),
        .library(name: "ReceiverControl", targets: ["ReceiverControl"]),
        .library(name: "SyntheticGPS", targets: ["SyntheticGPS"]),
        .executable(name: "gpsgen", targets: ["gpsgen"]),
        .library(name: "LocationSources", targets: ["LocationSources"]),
        .library(name: "LocationSourcesGeoClue", targets: ["LocationSourcesGeoClue"]),
        .executable(name: "locbench", targets: ["locbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.24.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.1.0"),
        .package(url: "https://github.com/apple/swift-algorithms.git", from: "1.2.0"),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.0", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-atomics.git", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // `swift package generate-documentation`: the DocC catalogs in Sources/<Module>/<Module>.docc (Scripts/build-docs.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.4.0"),
    ],
    targets: [
        // The scheduler: pure state machine + actor shell. No I/O dependency.
        .target(
            name: "LocationEngine",
            dependencies: [
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                // pthread-based locks: Synchronization.Mutex is invisible to ThreadSanitizer on Linux
                // (Swift 6.3), which would make `--sanitize=thread` report false races.
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Atomics", package: "swift-atomics"),
                // Metrics that cost nothing until the application bootstraps a backend.
                .product(name: "CoreMetrics", package: "swift-metrics"),
                // The engine's lifetime is a Service's `run()`.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // What users need to test their own code against the engine: a manual clock, a scripted source and
        // an executor that runs every task on the test's thread.
        .target(
            name: "LocationEngineTestKit",
            dependencies: [
                "LocationEngine", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        // Heap figures for locbench: jemalloc's mallctl statistics, or glibc's
        // mallinfo2 when jemalloc is absent. (Swift's Glibc module exports neither.)
        .target(
            name: "CHeapStats",
            cSettings: jemallocAvailable ? [.define("HEAPSTATS_JEMALLOC")] : [],
            linkerSettings: jemallocAvailable ? [.linkedLibrary("jemalloc")] : []
        ),
        // The benchmark executable: the engine under load, with invariant checks and a naive baseline.
        .executableTarget(
            name: "locbench",
            dependencies: [
                "LocationEngine", "LocationEngineTestKit", "SyntheticGPS", "LocationSources", "LocationSourcesGeoClue", "CHeapStats", "LocbenchModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Algorithms", package: "swift-algorithms"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Atomics", package: "swift-atomics"),
            ],
            swiftSettings: strict
        ),
        // locbench's model, pure and unit-tested: the on/off arrival process, interval maths, the power oracle, the latency recorder,
        // and the parsers of its free-text options (a library so that a fuzz target can link them).
        .target(
            name: "LocbenchModel",
            dependencies: ["LocationEngine", "SyntheticGPS", .product(name: "Histogram", package: "hdrhistogram-swift")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LocbenchModelTests",
            dependencies: [
                "LocbenchModel", "LocationEngine", "LocationEngineTestKit", .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: strict
        ),
        // Streaming NMEA 0183 decoder, epoch assembly and encoder. No dependencies.
        .target(name: "NMEA", swiftSettings: strict),
        // Receiver command protocols, written and parsed both ways: MediaTek PMTK packets, u-blox UBX frames,
        // and a splitter for the byte stream that mixes them with NMEA. Used by the drivers in LocationSources
        // and by the synthetic receiver's personas in SyntheticGPS.
        .target(name: "ReceiverControl", dependencies: ["NMEA"], swiftSettings: strict),
        .testTarget(name: "ReceiverControlTests", dependencies: ["ReceiverControl"], swiftSettings: strict),
        // Deterministic synthetic receiver: trajectories, error model, power modes, NMEA/GPX/GeoJSON output.
        .target(
            name: "SyntheticGPS",
            dependencies: [
                "NMEA", "LocationEngine", "ReceiverControl",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "gpsgen",
            dependencies: [
                "SyntheticGPS", "NMEA",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Real location sources: a gpsd client and an NMEA stream reader (TCP, serial, file, stdin).
        .target(
            name: "LocationSources",
            dependencies: [
                "LocationEngine", "NMEA", "ReceiverControl", "CPollability",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ],
            swiftSettings: strict
        ),
        // Whether epoll can watch a descriptor, for the NMEA sources (Swift's Glibc module lacks <sys/epoll.h>).
        .target(name: "CPollability"),
        // libdbus-1, the reference D-Bus client library (Debian's libdbus-1-dev), for the GeoClue source.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // The GeoClue2 source: a client of the system location service over D-Bus. A module of its own, so
        // that LocationSources builds on machines without libdbus's headers.
        .target(
            name: "LocationSourcesGeoClue",
            dependencies: [
                "CDBus", "LocationEngine",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LocationSourcesGeoClueTests",
            dependencies: [
                "TestSupport", "LocationSourcesGeoClue", "LocationEngine", "LocationEngineTestKit", "SyntheticGPS", "CDBus",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LocationSourcesTests",
            dependencies: [
                "TestSupport",
                "LocationSources", "LocationEngine", "LocationEngineTestKit", "NMEA", "SyntheticGPS",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "LocationEngineTests",
            dependencies: [
                "LocationEngine", "LocationEngineTestKit", .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "NMEATests",
            dependencies: ["NMEA", "LocationEngineTestKit", "TestSupport"],
            swiftSettings: strict
        ),
        // Harness pieces shared by the test targets that run gpsd and socat (not a product).
        .target(
            name: "TestSupport",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "SyntheticGPSTests",
            dependencies: [
                "SyntheticGPS", "NMEA", "LocationEngine", "LocationEngineTestKit", "TestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "SchedulerBenchmarks",
            dependencies: [
                "LocationEngine", "LocationEngineTestKit",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/SchedulerBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // Counts the engine's instructions per request under callgrind
        // (Scripts/count-engine-instructions.sh); not a product.
        .executableTarget(
            name: "EngineCostProbe",
            dependencies: ["LocationEngine", "LocationEngineTestKit"],
            path: "Profiling/EngineCostProbe",
            swiftSettings: strict
        ),
        // Counts the engine's hand-offs per 1,000 operations on the manual clock, every task on one
        // thread (Scripts/check-performance-counts.sh); not a product.
        .executableTarget(
            name: "EngineHandoffProbe",
            dependencies: ["LocationEngine", "LocationEngineTestKit", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            path: "Profiling/EngineHandoffProbe",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "NMEABenchmarks",
            dependencies: [
                "NMEA", "SyntheticGPS",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/NMEABenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Coverage-guided fuzz targets (libFuzzer), declared only when LOCATIONENGINE_FUZZ=1 so that a plain
// `swift build` or `swift test` never sees them. Build with `-sanitize=fuzzer` (see Scripts/fuzz.sh).
if ProcessInfo.processInfo.environment["LOCATIONENGINE_FUZZ"] == "1" {
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/FuzzSupport", swiftSettings: strict))
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("NMEAStreamFuzzer", ["NMEA"]),
        ("GPSDReportFuzzer", ["LocationSources", .product(name: "NIOCore", package: "swift-nio")]),
        ("AuthorizationConfigurationFuzzer", ["LocationEngine"]),
        ("LocbenchOptionsFuzzer", ["LocbenchModel", "SyntheticGPS", "LocationEngineTestKit"]),
        ("UBXReplyFuzzer", ["ReceiverControl", "LocationSources", "LocationEngine"]),
        ("PMTKReplyFuzzer", ["ReceiverControl", "LocationSources", "LocationEngine"]),
        ("GeofenceBodyFuzzer", ["LocationEngine", "SyntheticGPS"]),
        ("GeoClueValuesFuzzer", ["LocationSourcesGeoClue", "LocationEngine", "CDBus"]),
    ]
    for fuzzer in fuzzTargets {
        package.targets.append(
            .executableTarget(
                name: fuzzer.name, dependencies: ["FuzzSupport"] + fuzzer.dependencies, path: "Fuzz/\(fuzzer.name)",
                swiftSettings: strict
            ))
        package.products.append(.executable(name: fuzzer.name, targets: [fuzzer.name]))
    }
}
