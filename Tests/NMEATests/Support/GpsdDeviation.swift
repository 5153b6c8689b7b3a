/// A rule by which the decoder deliberately reports something other than gpsd 3.22, and why.
///
/// The conformance test applies each to the logs listed in ``applying(to:)``; the README's decoding
/// section explains each to users.
enum GpsdDeviation: Hashable {
    /// gpsd reports each epoch's `eph` from the previous cycle's HDOP when a receiver prints RMC before
    /// GGA (it reports the fix at RMC); the decoder uses each epoch's own HDOP, so the test compares
    /// gpsd's value with the decoder's previous epoch.
    case ephLagsOneEpoch

    /// The deviations that apply to one corpus log.
    static func applying(to log: String) -> Set<GpsdDeviation> {
        switch log {
        case "com-1289.log": [.ephLagsOneEpoch]
        default: []
        }
    }
}
