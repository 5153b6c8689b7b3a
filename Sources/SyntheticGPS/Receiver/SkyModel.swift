/// The sky the receiver tracks: which satellites are up, how strong they are, which ones buildings hide,
/// and the DOPs of those used. Recomputed once per ``refreshInterval`` window of the scenario's time
/// (satellites move about 0.5° per minute), so generating a fix costs nothing here most of the time.
///
/// The windows are the scenario's, not the receiver's: a view is computed as of its window's start, whenever
/// the receiver was switched on. Two receivers of one scenario that sample it differently (one tracking
/// continuously, one sleeping between fixes) see the same satellites and DOPs in every window, so their fixes'
/// accuracy differs only by what the receivers do (a restart's rougher first fixes), never by the phase of
/// their sky's refresh. (The view is taken from where the receiver is when it computes, its first epoch in the
/// window: a car moves a few hundred metres within a window, which turns a satellite by under a thousandth of
/// a degree, so two receivers that computed at different places can differ only in a satellite whose strength
/// lies that close to a rounding step. Standing still, they never differ.)
struct SkyModel: Sendable {
    /// The current view: every tracked satellite, used ones flagged.
    private(set) var satellites: [SatelliteObservation] = []
    /// The DOPs of the used satellites, or `nil` when fewer than four are usable.
    private(set) var dop: DilutionOfPrecision?
    /// How many satellites are used.
    private(set) var usedCount = 0

    private let constellation = Constellation()
    private let environment: Environment
    private let seed: UInt64
    /// The ``refreshInterval`` window of the current view (`nil`: none computed).
    private var computedWindow: Double?
    /// Seconds between recomputations.
    static let refreshInterval = 10.0
    /// Fewest dB-Hz for a satellite to be used.
    private static let usableSNR = 28.0
    /// Most satellites a fix uses (the NMEA GSA sentence lists twelve).
    private static let maximumUsed = 12

    init(environment: Environment, seed: UInt64) {
        self.environment = environment
        self.seed = seed
    }

    /// Recomputes the view, as of the start of the ``refreshInterval`` window `elapsed` is in, when the
    /// current one is another window's.
    mutating func update(
        elapsed: Double, unixTime: Double, latitude: Double, longitude: Double, height: Double
    ) {
        let window = (elapsed / Self.refreshInterval).rounded(.down)
        guard window != computedWindow else { return }
        computedWindow = window
        let start = window * Self.refreshInterval
        var view = constellation.visible(
            unixTime: unixTime - (elapsed - start), latitude: latitude, longitude: longitude, height: height,
            mask: environment.elevationMask
        )
        let minute = UInt64(max(0, start / 60))
        for index in view.indices {
            let prn = UInt64(view[index].prn)
            let elevation = view[index].elevation
            // Stable per satellite and minute, so blockage does not flicker from one epoch to the next.
            let blocked = elevation < environment.canyonElevation
                && Self.unit(hash(seed, prn, minute)) < environment.blockageProbability
            let wobble = 2 * (Self.unit(hash(seed, prn, UInt64(max(0, window)))) - 0.5)
            let clear = 30 + 18 * Math.sin(elevation * Math.radians) + 2 * wobble
            view[index].snr = (blocked ? clear - 14 : clear).rounded()
        }
        // Use the strongest usable ones, up to twelve.
        let ranked = view.indices.filter { view[$0].snr >= Self.usableSNR }.sorted { view[$0].snr > view[$1].snr }
        for index in ranked.prefix(Self.maximumUsed) { view[index].used = true }
        usedCount = min(ranked.count, Self.maximumUsed)
        satellites = view
        dop = DilutionOfPrecision(satellites: view)
    }

    /// Forgets the view (the sky is blocked); the next ``update`` recomputes.
    mutating func clear() {
        satellites = []
        dop = nil
        usedCount = 0
        computedWindow = nil
    }

    private static func unit(_ bits: UInt64) -> Double { Double(bits >> 11) * 0x1.0p-53 }
}

/// A stateless 64-bit mix of three words (SplitMix64's finaliser), for decisions that must be stable
/// functions of their inputs rather than draws from a stream.
func hash(_ a: UInt64, _ b: UInt64, _ c: UInt64) -> UInt64 {
    var z = a &+ b &* 0x9E37_79B9_7F4A_7C15 &+ c &* 0xD1B5_4A32_D192_ED03
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}
