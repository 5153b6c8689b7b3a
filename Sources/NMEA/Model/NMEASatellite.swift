/// One satellite in view, as reported by GSV and marked used from GSA.
public struct NMEASatellite: Sendable, Hashable {
    /// The satellite number as the receiver prints it (NMEA numbering: GPS 1–32, SBAS 33–64, GLONASS 65–96, …).
    public var prn: Int
    /// Elevation above the horizon in degrees, when reported.
    public var elevation: Double?
    /// Azimuth in degrees true, when reported.
    public var azimuth: Double?
    /// Carrier-to-noise density in dB-Hz, absent when the satellite is not tracked.
    public var snr: Double?
    /// Whether a GSA of the same epoch lists this satellite as used in the fix.
    public var used: Bool

    /// Creates a satellite record.
    public init(prn: Int, elevation: Double? = nil, azimuth: Double? = nil, snr: Double? = nil, used: Bool = false) {
        self.prn = prn
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
        self.used = used
    }
}
