/// Turns epochs into a text format, streaming: a header, one chunk per epoch, a footer.
public protocol EpochWriter: Sendable {
    /// Text that starts the document.
    func header() -> String
    /// Appends the text for `epoch` (possibly nothing, e.g. a no-fix epoch in a track format) to `output`.
    mutating func write(_ epoch: SyntheticEpoch, to output: inout String)
    /// Text that ends the document.
    func footer() -> String
}

/// The text formats the generator writes.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    /// NMEA 0183 sentences (every epoch).
    case nmea
    /// GPX 1.1 track (fixes only).
    case gpx
    /// GeoJSON FeatureCollection of points (fixes only).
    case geojson

    /// A writer for this format, titled with the scenario's name.
    public func makeWriter(for scenario: Scenario) -> any EpochWriter {
        switch self {
        case .nmea: NMEAWriter()
        case .gpx: GPXWriter(name: scenario.name)
        case .geojson: GeoJSONWriter(name: scenario.name)
        }
    }

    /// The format called `name`.
    /// - Throws: ``SyntheticGPSError`` when the name is unknown.
    public static func named(_ name: String) throws(SyntheticGPSError) -> OutputFormat {
        guard let format = OutputFormat(rawValue: name.lowercased()) else {
            throw .invalidArgument(
                "unknown format '\(name)'; choose one of: \(allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        return format
    }
}
