/// One satellite in view on one signal, as reported by GSV and marked used from GSA.
public struct NMEASatellite: Sendable, Hashable {
    /// The satellite number as the receiver prints it (NMEA numbering: GPS 1–32, SBAS 33–64, GLONASS 65–96, …;
    /// Galileo and BeiDou 1–36 and 1–63 under their own talkers).
    public var prn: Int
    /// Which satellite the number means (``NMEASatelliteID``): in an epoch, read with the talker of its GSV; in a
    /// GSV decoded on its own, which does not know its talker, read as a `GP` talker's.
    public var id: NMEASatelliteID
    /// The NMEA 4.10 signal ID of its GSV (`1` GPS L1 C/A, `6` L2 CL, …), when printed: a receiver tracking
    /// two signals of one satellite reports it once per signal.
    public var signalID: Int?
    /// Elevation above the horizon in degrees, when reported.
    public var elevation: Double?
    /// Azimuth in degrees true, when reported.
    public var azimuth: Double?
    /// Carrier-to-noise density in dB-Hz, absent when the satellite is not tracked.
    public var snr: Double?
    /// Whether a GSA of the same epoch lists this satellite as used in the fix.
    public var used: Bool

    /// Creates a satellite record; without an `id`, the number is read as a `GP` talker's.
    public init(
        prn: Int, id: NMEASatelliteID? = nil, signalID: Int? = nil, elevation: Double? = nil, azimuth: Double? = nil,
        snr: Double? = nil, used: Bool = false
    ) {
        self.prn = prn
        self.id = id ?? NMEASatelliteID(prn: prn, talker: .gps)
        self.signalID = signalID
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
        self.used = used
    }
}
