/// Plausibility bounds shared by the sentence parsers; values outside are `.outOfRange`.
enum NMEALimits {
    /// Dilutions of precision (receivers print up to 99.99; some use 0.0 for "unknown").
    static let dop: ClosedRange<Double> = 0...100
    /// Altitudes in metres: below the Dead Sea shore with margin, up to low Earth orbit.
    static let altitude: ClosedRange<Double> = -1_000...1_000_000
    /// Geoid undulation is within ±107 m on Earth; allow a margin.
    static let geoidSeparation: ClosedRange<Double> = -200...200
    /// Course over ground, degrees (360 is printed by some receivers).
    static let course: ClosedRange<Double> = 0...360
    /// Speed over ground in knots (about 51 km/s: anything faster is garbage).
    static let speedKnots: ClosedRange<Double> = 0...100_000
    /// 1-sigma errors in metres.
    static let sigma: ClosedRange<Double> = 0...1_000_000
}
