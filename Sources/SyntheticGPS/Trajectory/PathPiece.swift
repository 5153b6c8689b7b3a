/// One piece of a route: a straight line or a circular arc of constant curvature, travelled from its
/// start in the direction of the route.
struct PathPiece: Sendable, Hashable {
    /// Length along the path in metres (`> 0`).
    var length: Double
    /// Signed curvature in 1/m: `0` for a straight line, positive for a right (clockwise) turn.
    var curvature: Double
    /// The highest speed allowed on this piece in m/s (already limited by the lateral acceleration on arcs).
    var speedLimit: Double
    /// Seconds to stand still at the end of the piece (a stop sign, a red light, a pedestrian crossing); `0` for none.
    var dwellAtEnd: Double
    /// Climb per metre travelled (a road grade of 3 % is `0.03`).
    var grade: Double

    /// The east/north displacement (metres) after travelling `s` metres along the piece from a point
    /// where the heading (radians clockwise from north) is `heading` with sine `sinH` and cosine `cosH`,
    /// and the heading there with its sine and cosine.
    ///
    /// Exact for lines and arcs: `dE/ds = sin h`, `dN/ds = cos h`, `h(s) = h0 + κ s`. Lines need no
    /// trigonometry at all.
    @inline(__always)
    func advance(
        by s: Double, heading: Double, sinH: Double, cosH: Double
    ) -> (east: Double, north: Double, heading: Double, sinH: Double, cosH: Double) {
        let k = curvature
        if abs(k) < 1e-12 {
            return (s * sinH, s * cosH, heading, sinH, cosH)
        }
        let h1 = Math.wrappedRadians(heading + k * s)
        let sin1 = Math.sin(h1), cos1 = Math.cos(h1)
        return ((cosH - cos1) / k, (sin1 - sinH) / k, h1, sin1, cos1)
    }
}
