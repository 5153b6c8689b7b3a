/// Writes fixes as a GPX 1.1 track: one `trkpt` per fix with elevation, time, fix type, satellites and
/// DOPs. Epochs without a fix are left out (GPX needs a position).
public struct GPXWriter: EpochWriter {
    /// The track's name.
    public var name: String

    /// A writer for a track called `name`.
    public init(name: String) {
        self.name = name
    }

    /// The XML declaration, `gpx` element and the track's opening.
    public func header() -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="gpsgen" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><name>\(Self.escaped(name))</name><trkseg>

        """
    }

    /// Appends a `trkpt` for a fix; nothing for an epoch without one.
    public mutating func write(_ epoch: SyntheticEpoch, to output: inout String) {
        guard let fix = epoch.fix else { return }
        output += "<trkpt lat=\"\(DecimalText.fixed(fix.latitude, decimals: 8))\" lon=\"\(DecimalText.fixed(fix.longitude, decimals: 8))\">"
        if let altitude = fix.altitude { output += "<ele>\(DecimalText.fixed(altitude, decimals: 2))</ele>" }
        output += "<time>\(UTCDate(unixTime: epoch.unixTime).iso8601)</time>"
        output += "<fix>\(fix.is3D ? "3d" : "2d")</fix>"
        if epoch.satellitesUsed > 0 { output += "<sat>\(epoch.satellitesUsed)</sat>" }
        if let dop = epoch.dop {
            output += "<hdop>\(DecimalText.fixed(dop.horizontal, decimals: 2))</hdop>"
            output += "<vdop>\(DecimalText.fixed(dop.vertical, decimals: 2))</vdop>"
            output += "<pdop>\(DecimalText.fixed(dop.position, decimals: 2))</pdop>"
        }
        output += "</trkpt>\n"
    }

    /// Closes the track and the document.
    public func footer() -> String { "</trkseg></trk>\n</gpx>\n" }

    static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}
