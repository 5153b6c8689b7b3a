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

    /// The east/north displacement (metres) and heading change (radians) after travelling `s` metres
    /// along the piece, starting with `heading` (radians clockwise from north).
    ///
    /// Exact for lines and arcs: `dE/ds = sin h`, `dN/ds = cos h`, `h(s) = h0 + κ s`.
    @inline(__always)
    func displacement(after s: Double, heading: Double) -> (east: Double, north: Double, heading: Double) {
        let k = curvature
        if abs(k) < 1e-12 {
            return (s * Math.sin(heading), s * Math.cos(heading), heading)
        }
        let h1 = heading + k * s
        return ((Math.cos(heading) - Math.cos(h1)) / k, (Math.sin(h1) - Math.sin(heading)) / k, h1)
    }
}
