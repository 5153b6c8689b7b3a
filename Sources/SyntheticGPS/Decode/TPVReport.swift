import NMEA

/// A decoded NMEA epoch in gpsd's `TPV` vocabulary (gpsd_json(5)): what `gpsgen decode` prints, one
/// JSON object per line.
public struct TPVReport: Sendable, Hashable {
    /// `0` unknown, `1` no fix, `2` 2D, `3` 3D.
    public var mode: Int
    /// UTC time as ISO 8601 with milliseconds, when the epoch carries date and time.
    public var time: String?
    /// Latitude in degrees.
    public var latitude: Double?
    /// Longitude in degrees.
    public var longitude: Double?
    /// Height above the WGS-84 ellipsoid in metres.
    public var altitudeHAE: Double?
    /// Height above mean sea level in metres.
    public var altitudeMSL: Double?
    /// Ground speed in m/s.
    public var speed: Double?
    /// Course over ground in degrees.
    public var track: Double?
    /// Horizontal error estimate in metres on gpsd's ~95 % scale.
    public var eph: Double?

    /// The report for `epoch`. Position, altitude and motion are only reported with a fix, as gpsd does.
    public init(_ epoch: NMEAEpoch) {
        mode = epoch.mode.rawValue
        time = epoch.unixTime.map { UTCDate(unixTime: $0).iso8601 }
        let hasFix = epoch.mode == .twoD || epoch.mode == .threeD
        latitude = hasFix ? epoch.latitude : nil
        longitude = hasFix ? epoch.longitude : nil
        altitudeHAE = epoch.mode == .threeD ? epoch.altitudeHAE : nil
        altitudeMSL = epoch.mode == .threeD ? epoch.altitudeMSL : nil
        speed = hasFix ? epoch.speed : nil
        track = hasFix ? epoch.track : nil
        eph = hasFix ? epoch.horizontalAccuracy : nil
    }

    /// One line of JSON (no trailing newline), keys in gpsd's order, absent values left out.
    public var json: String {
        var text = "{\"class\":\"TPV\",\"mode\":\(mode)"
        if let time { text += ",\"time\":\"\(time)\"" }
        func add(_ key: String, _ value: Double?, _ decimals: Int) {
            if let value, value.isFinite { text += ",\"\(key)\":\(DecimalText.fixed(value, decimals: decimals))" }
        }
        add("lat", latitude, 9)
        add("lon", longitude, 9)
        add("altHAE", altitudeHAE, 3)
        add("altMSL", altitudeMSL, 3)
        add("speed", speed, 3)
        add("track", track, 4)
        add("eph", eph, 3)
        return text + "}"
    }
}

/// Decodes an NMEA byte stream into ``TPVReport``s, keeping the decoder's statistics for a summary.
public struct NMEALogDecoder: Sendable {
    private var decoder = NMEAStreamDecoder()

    /// A decoder with the NMEA module's default limits.
    public init() {}

    /// Feeds a chunk of the stream; calls `report` for every epoch it completes.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, report: (TPVReport) -> Void) {
        decoder.feed(bytes) { report(TPVReport($0)) }
    }

    /// Ends the stream, reporting the last epoch if one is pending.
    public mutating func finish(report: (TPVReport) -> Void) {
        decoder.finish { report(TPVReport($0)) }
    }

    /// Sentences read and errors by kind so far.
    public var statistics: NMEADecoderStatistics { decoder.statistics }

    /// A one-paragraph human summary: sentences, epochs, and errors by kind (most frequent first).
    public var summary: String {
        let stats = decoder.statistics
        var text = "\(stats.sentences) sentences, \(stats.epochs) epochs, \(stats.totalErrors) errors"
        let errors = stats.errors.filter { $0.value > 0 }.sorted { ($1.value, $0.key.rawValue) < ($0.value, $1.key.rawValue) }
        if !errors.isEmpty {
            text += ": " + errors.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
        }
        if stats.discardedBytes > 0 { text += "; \(stats.discardedBytes) bytes discarded" }
        return text
    }
}
