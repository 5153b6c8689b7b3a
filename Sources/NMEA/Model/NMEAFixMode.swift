/// The kind of fix an epoch carries, with gpsd's `TPV.mode` numbering.
///
/// The decoder derives it per epoch (see ``NMEAEpochAssembler``): simulated data
/// (GGA quality 8, FAA mode `S`) is `.noFix`; a GGA with a non-zero quality and an
/// altitude is `.threeD`, without altitude `.twoD`, quality 0 is `.noFix`; GNS
/// likewise; then the GSA fix type; then an RMC/GLL status of `A` means `.twoD` and
/// `V` (or FAA mode `N`) `.noFix`; then `$PGRMZ`'s dimension; a cycle with a time
/// and nothing else about a fix is `.noFix`.
public enum NMEAFixMode: Int, Sendable {
    /// Nothing in the epoch said whether there is a fix, nor carried a time.
    case unknown = 0
    /// The receiver reported that it has no fix.
    case noFix = 1
    /// Horizontal position only.
    case twoD = 2
    /// Horizontal position and altitude.
    case threeD = 3
}
