import Foundation

/// Locates the shared conformance corpus (`../shared/nmea` beside the package, or `$LOCATIONENGINE_NMEA_CORPUS`).
public enum Corpus {
    /// The corpus folder, or `nil` when it is absent (a fresh clone outside the project machines).
    public static let directory: URL? = {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["LOCATIONENGINE_NMEA_CORPUS"], !override.isEmpty {
            candidates.append(URL(fileURLWithPath: override, isDirectory: true))
        }
        // #filePath is <root>/Tests/TestSupport/Corpus.swift; the corpus lives at <root>/../shared/nmea.
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.deletingLastPathComponent().appendingPathComponent("shared/nmea", isDirectory: true))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("README.md").path) }
    }()

    /// Whether the corpus is present.
    public static var isAvailable: Bool { directory != nil }

    /// The logs of the corpus that have gpsd's decoding (`X.log.chk`) beside them, sorted by name;
    /// empty when the corpus is absent. Read from the folder, so new logs are picked up.
    public static let logNames: [String] = {
        guard let directory, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        let present = Set(names)
        return names.filter { $0.hasSuffix(".log") && present.contains($0 + ".chk") }.sorted()
    }()

    /// The bytes of one corpus file.
    public static func bytes(_ name: String) throws -> [UInt8] {
        guard let directory else { throw CorpusMissing() }
        return Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// The text of one corpus file.
    public static func text(_ name: String) throws -> String {
        String(decoding: try bytes(name), as: UTF8.self)
    }

    /// Thrown when a test reads the corpus although it is absent.
    public struct CorpusMissing: Error {}
}
