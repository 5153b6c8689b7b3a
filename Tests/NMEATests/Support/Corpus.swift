import Foundation

/// Locates the shared conformance corpus (`../shared/nmea` beside the package, or `$LOCATIONENGINE_NMEA_CORPUS`).
enum Corpus {
    /// The corpus folder, or `nil` when it is absent (a fresh clone outside the project machines).
    static let directory: URL? = {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["LOCATIONENGINE_NMEA_CORPUS"], !override.isEmpty {
            candidates.append(URL(fileURLWithPath: override, isDirectory: true))
        }
        // #filePath is <root>/Tests/NMEATests/Support/Corpus.swift; the corpus lives at <root>/../shared/nmea.
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.deletingLastPathComponent().appendingPathComponent("shared/nmea", isDirectory: true))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("README.md").path) }
    }()

    /// Whether the corpus is present.
    static var isAvailable: Bool { directory != nil }

    /// The logs of the corpus, each beside its `.chk` file.
    static let logNames = ["bu353s4.log", "com-1289.log", "haicom-305N.log", "quectel.log", "triton400.log"]

    /// The bytes of one corpus file.
    static func bytes(_ name: String) throws -> [UInt8] {
        guard let directory else { throw CorpusMissing() }
        return Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// Thrown when a test reads the corpus although it is absent.
    struct CorpusMissing: Error {}
}
