import NMEA

extension SyntheticEpoch {
    /// The epoch as the NMEA module's `NMEAEpoch`, ready for `NMEAEncoder`.
    ///
    /// No fix → mode 1 and GGA quality 0 (RMC status `V`); a network fix is 2D; a satellite fix 3D
    /// with DOPs, satellites and a GST carrying the per-axis 1σ errors the accuracy stands for.
    public var nmeaEpoch: NMEAEpoch {
        var nmea = NMEAEpoch()
        nmea.talker = "GP"
        let date = UTCDate(unixTime: unixTime)
        nmea.year = date.year
        nmea.month = date.month
        nmea.day = date.day
        nmea.secondsOfDay = date.secondsOfDay
        nmea.satellites = satellites.map {
            NMEASatellite(prn: $0.prn, elevation: $0.elevation.rounded(), azimuth: $0.azimuth.rounded(), snr: $0.snr, used: $0.used)
        }
        nmea.usedSatellites = satellites.filter(\.used).map { NMEASatelliteID(prn: $0.prn, talker: .gps) }
        guard let fix else {
            nmea.mode = .noFix
            nmea.ggaQuality = 0
            nmea.satellitesUsed = 0
            return nmea
        }
        nmea.mode = fix.is3D ? .threeD : .twoD
        nmea.ggaQuality = 1
        nmea.latitude = fix.latitude
        nmea.longitude = fix.longitude
        nmea.altitudeMSL = fix.altitude
        nmea.geoidSeparation = fix.altitude == nil ? nil : geoidSeparation
        nmea.speed = fix.speed
        nmea.track = fix.course
        nmea.satellitesUsed = satellitesUsed
        nmea.hdop = dop?.horizontal
        nmea.vdop = dop?.vertical
        nmea.pdop = dop?.position
        nmea.gstLatitudeError = fix.axisSigma
        nmea.gstLongitudeError = fix.axisSigma
        nmea.gstAltitudeError = fix.verticalAccuracy
        return nmea
    }
}

/// Writes epochs as NMEA 0183 text, one block of sentences per epoch, every epoch included (no-fix
/// epochs too, as a receiver does).
public struct NMEAWriter: EpochWriter {
    /// The sentences written for each epoch, in order.
    public var sentences: [NMEASentenceKind]

    /// The sentences a typical receiver emits: RMC, GGA, GSA, GSV and GST.
    public static let standardSentences: [NMEASentenceKind] = [.rmc, .gga, .gsa, .gsv, .gst]

    /// A writer emitting `sentences` for each epoch.
    public init(sentences: [NMEASentenceKind] = NMEAWriter.standardSentences) {
        self.sentences = sentences
    }

    /// Nothing: NMEA has no header.
    public func header() -> String { "" }

    /// Appends the epoch's sentences, each `"$...*HH\r\n"`.
    public mutating func write(_ epoch: SyntheticEpoch, to output: inout String) {
        output += NMEAEncoder.encode(epoch.nmeaEpoch, sentences: sentences)
    }

    /// Nothing: NMEA has no footer.
    public func footer() -> String { "" }
}
