/// Writes epochs back out as NMEA 0183 sentences with valid checksums.
///
/// Precision is chosen so that decoding the output gives back the epoch:
/// positions with six decimals of minutes (≈ 2 mm), time to the millisecond,
/// altitudes and DOPs to 0.01, speed to 0.001 kn, track to 0.01°, GST errors to 1 mm.
public enum NMEAEncoder {
    /// Full sentences, each `"$...*HH\r\n"`, for one epoch, in the order given.
    ///
    /// GSA may produce several sentences (twelve satellites each) and GSV one per four
    /// satellites; GST is skipped when the epoch has no GST errors. Satellites are numbered in NMEA's
    /// extended ranges (``NMEASatelliteID/extendedNumber``), so a `GP` or `GN` epoch of several systems
    /// reads back as the same satellites; signal IDs are not written.
    /// - Complexity: O(sentences + satellites).
    public static func encode(_ epoch: NMEAEpoch, sentences: [NMEASentenceKind]) -> String {
        var output = ""
        for kind in sentences {
            for sentence in encode(epoch, kind: kind) { output += sentence }
        }
        return output
    }

    /// The sentences of one type for `epoch`, each `"$...*HH\r\n"`; none for GNS, HDT and the
    /// proprietary types, which are only decoded.
    public static func encode(_ epoch: NMEAEpoch, kind: NMEASentenceKind) -> [String] {
        switch kind {
        case .gga: [gga(epoch)]
        case .rmc: [rmc(epoch)]
        case .gsa: gsa(epoch)
        case .gsv: gsv(epoch)
        case .gll: [gll(epoch)]
        case .vtg: [vtg(epoch)]
        case .gst: gst(epoch)
        case .zda: [zda(epoch)]
        // Decoded for their content; the encoder writes the standard set above.
        case .gns, .hdt, .pgrme, .pgrmz, .psrfepe: []
        }
    }

    private static func hasFix(_ epoch: NMEAEpoch) -> Bool { epoch.mode == .twoD || epoch.mode == .threeD }

    /// The track as printed to 0.01°: one that rounds up to 360 is north, 0 (NMEA's range is 0–359.99).
    private static func track(_ epoch: NMEAEpoch) -> Double? {
        guard let track = epoch.track else { return nil }
        return (track * 100).rounded() >= 36_000 ? 0 : track
    }

    private static func gga(_ epoch: NMEAEpoch) -> String {
        var writer = NMEASentenceWriter(talker: epoch.talker, kind: .gga)
        writer.time(epoch.secondsOfDay)
        writer.angle(epoch.latitude, degreeDigits: 2, positive: 0x4E, negative: 0x53)
        writer.angle(epoch.longitude, degreeDigits: 3, positive: 0x45, negative: 0x57)
        writer.field(epoch.ggaQuality ?? (hasFix(epoch) ? 1 : 0))
        writer.field(epoch.satellitesUsed ?? (epoch.usedSatellites.isEmpty ? nil : epoch.usedSatellites.count), digits: 2)
        writer.field(epoch.hdop, decimals: 2)
        // A 2D fix carries no altitude: the decoder reads "GGA with altitude" as 3D.
        writer.field(epoch.mode == .twoD ? nil : epoch.altitudeMSL, decimals: 2)
        writer.field("M")
        writer.field(epoch.geoidSeparation, decimals: 2)
        writer.field("M")
        writer.empty()
        writer.empty()
        return writer.finish()
    }

    private static func rmc(_ epoch: NMEAEpoch) -> String {
        var writer = NMEASentenceWriter(talker: epoch.talker, kind: .rmc)
        writer.time(epoch.secondsOfDay)
        writer.field(hasFix(epoch) ? "A" : "V")
        writer.angle(epoch.latitude, degreeDigits: 2, positive: 0x4E, negative: 0x53)
        writer.angle(epoch.longitude, degreeDigits: 3, positive: 0x45, negative: 0x57)
        writer.field(epoch.speed.map { $0 / NMEAUnits.metresPerSecondPerKnot }, decimals: 3)
        writer.field(track(epoch), decimals: 2)
        writer.date(year: epoch.year, month: epoch.month, day: epoch.day)
        writer.empty()
        writer.empty()
        writer.field(hasFix(epoch) ? "A" : "N")
        return writer.finish()
    }

    private static func gsa(_ epoch: NMEAEpoch) -> [String] {
        let numbers = epoch.usedSatellites.map(\.extendedNumber)
        var chunks: [ArraySlice<Int>] = stride(from: 0, to: numbers.count, by: 12).map {
            numbers[$0..<min($0 + 12, numbers.count)]
        }
        if chunks.isEmpty { chunks = [[]] }
        return chunks.map { prns in
            var writer = NMEASentenceWriter(talker: epoch.talker, kind: .gsa)
            writer.field("A")
            writer.field(epoch.mode == .unknown ? 1 : epoch.mode.rawValue)
            for slot in 0..<12 {
                writer.field(slot < prns.count ? prns[prns.startIndex + slot] : nil, digits: 2)
            }
            writer.field(epoch.pdop, decimals: 2)
            writer.field(epoch.hdop, decimals: 2)
            writer.field(epoch.vdop, decimals: 2)
            return writer.finish()
        }
    }

    private static func gsv(_ epoch: NMEAEpoch) -> [String] {
        let satellites = epoch.satellites
        let total = max(1, (satellites.count + 3) / 4)
        return (0..<total).map { message in
            var writer = NMEASentenceWriter(talker: epoch.talker, kind: .gsv)
            writer.field(total)
            writer.field(message + 1)
            writer.field(satellites.count, digits: 2)
            for satellite in satellites.dropFirst(message * 4).prefix(4) {
                writer.field(satellite.id.extendedNumber, digits: 2)
                writer.field(satellite.elevation.flatMap { Int(exactly: $0.rounded()) }, digits: 2)
                // An azimuth that rounds up to 360 is north, printed 0 (NMEA's range is 0–359).
                writer.field(satellite.azimuth.flatMap { Int(exactly: $0.rounded()) }.map { $0 % 360 }, digits: 3)
                writer.field(satellite.snr.flatMap { Int(exactly: $0.rounded()) }, digits: 2)
            }
            return writer.finish()
        }
    }

    private static func gll(_ epoch: NMEAEpoch) -> String {
        var writer = NMEASentenceWriter(talker: epoch.talker, kind: .gll)
        writer.angle(epoch.latitude, degreeDigits: 2, positive: 0x4E, negative: 0x53)
        writer.angle(epoch.longitude, degreeDigits: 3, positive: 0x45, negative: 0x57)
        writer.time(epoch.secondsOfDay)
        writer.field(hasFix(epoch) ? "A" : "V")
        writer.field(hasFix(epoch) ? "A" : "N")
        return writer.finish()
    }

    private static func vtg(_ epoch: NMEAEpoch) -> String {
        var writer = NMEASentenceWriter(talker: epoch.talker, kind: .vtg)
        writer.field(track(epoch), decimals: 2)
        writer.field("T")
        writer.empty()
        writer.field("M")
        writer.field(epoch.speed.map { $0 / NMEAUnits.metresPerSecondPerKnot }, decimals: 3)
        writer.field("N")
        writer.field(epoch.speed.map { $0 * 3.6 }, decimals: 3)
        writer.field("K")
        writer.field(hasFix(epoch) ? "A" : "N")
        return writer.finish()
    }

    private static func gst(_ epoch: NMEAEpoch) -> [String] {
        guard epoch.gstLatitudeError != nil || epoch.gstLongitudeError != nil || epoch.gstAltitudeError != nil else { return [] }
        var writer = NMEASentenceWriter(talker: epoch.talker, kind: .gst)
        writer.time(epoch.secondsOfDay)
        writer.empty()
        writer.empty()
        writer.empty()
        writer.empty()
        writer.field(epoch.gstLatitudeError, decimals: 3)
        writer.field(epoch.gstLongitudeError, decimals: 3)
        writer.field(epoch.gstAltitudeError, decimals: 3)
        return [writer.finish()]
    }

    private static func zda(_ epoch: NMEAEpoch) -> String {
        var writer = NMEASentenceWriter(talker: epoch.talker, kind: .zda)
        writer.time(epoch.secondsOfDay)
        writer.field(epoch.day, digits: 2)
        writer.field(epoch.month, digits: 2)
        writer.field(epoch.year, digits: 4)
        writer.field(0, digits: 2)
        writer.field(0, digits: 2)
        return writer.finish()
    }
}
