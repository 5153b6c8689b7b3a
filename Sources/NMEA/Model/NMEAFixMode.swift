/// The kind of fix an epoch carries, with gpsd's `TPV.mode` numbering.
///
/// The decoder derives it per epoch (see ``NMEAEpoch/mode``): a GGA with a
/// non-zero quality and an altitude is `.threeD`, without altitude `.twoD`,
/// quality 0 is `.noFix`; without GGA the GSA fix type decides, and without
/// either an RMC/GLL status of `A` means `.twoD` and `V` means `.noFix`.
public enum NMEAFixMode: Int, Sendable {
    /// Nothing in the epoch said whether there is a fix.
    case unknown = 0
    /// The receiver reported that it has no fix.
    case noFix = 1
    /// Horizontal position only.
    case twoD = 2
    /// Horizontal position and altitude.
    case threeD = 3
}
