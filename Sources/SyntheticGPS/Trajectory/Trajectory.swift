/// The ground-truth motion of the simulated device: it follows a route of lines and arcs with a speed
/// controller that accelerates, brakes ahead of turns and stops, and waits at stops.
///
/// Positions are integrated on the WGS-84 ellipsoid from metre-sized increments, so speed and course
/// are locally exact however far the route wanders. Time only moves forward.
struct Trajectory: Sendable {
    /// The current truth.
    private(set) var state: TruthState
    private let profile: MotionProfile
    private var source: RouteSource
    /// Pieces ahead, the current one first; `offset` metres of it have been travelled.
    private var pieces: [PathPiece] = []
    private var offset: Double = 0
    /// Heading in radians clockwise from north, with its sine and cosine.
    private var heading: Double
    private var sinHeading: Double
    private var cosHeading: Double
    /// Degrees per metre around the current latitude.
    private(set) var scale = LocalScale()
    /// Seconds left standing at a stop.
    private var dwell: Double = 0
    private var routeEnded = false
    private let lookahead: Double
    /// The longest integration step in seconds. Accelerations are constant over a step and the path
    /// geometry is exact, so one second loses nothing visible at 1 Hz.
    private static let maximumStep = 1.0

    /// A device that starts at rest at `start` (altitude `altitude` above MSL), heading `heading` radians,
    /// and then follows `source`.
    init(start: Coordinate, altitude: Double, heading: Double, profile: MotionProfile, source: RouteSource) {
        self.state = TruthState(
            elapsed: 0, latitude: start.latitude, longitude: start.longitude, altitude: altitude, speed: 0,
            course: Math.normalizedDegrees(heading * Math.degrees)
        )
        self.profile = profile
        self.source = source
        self.heading = heading
        self.sinHeading = Math.sin(heading)
        self.cosHeading = Math.cos(heading)
        let fastest = profile.cruiseSpeeds.max() ?? 1
        self.lookahead = fastest * fastest / (2 * profile.deceleration) + 2 * fastest + 50
        refill()
    }

    /// Moves the truth forward to `elapsed` seconds; earlier times are ignored.
    ///
    /// - Complexity: O(elapsed − current time), in steps of at most 1 s.
    mutating func advance(to elapsed: Double) {
        var remaining = elapsed - state.elapsed
        guard remaining > 0 else { return }
        while remaining > 1e-12 {
            let dt = min(remaining, Self.maximumStep)
            step(dt)
            remaining -= dt
        }
        state.elapsed = elapsed
    }

    private mutating func step(_ interval: Double) {
        var dt = interval
        if dwell > 0 {
            let waited = min(dwell, dt)
            dwell -= waited
            dt -= waited
            state.speed = 0
            if dt <= 0 { return }
        }
        guard !pieces.isEmpty else {
            state.speed = 0
            return
        }
        let v0 = state.speed
        let target = allowedSpeed(from: v0, over: dt)
        let change = target - v0
        let a = change > 0 ? min(change / dt, profile.acceleration) : max(change / dt, -2 * profile.deceleration)
        let v1 = max(0, v0 + a * dt)
        state.speed = v1
        move((v0 + v1) / 2 * dt)
    }

    /// The fastest the device may be going at the end of a step of `dt` seconds, starting at `v0`, so
    /// that it can still brake at the comfortable deceleration to every speed limit and stop ahead.
    ///
    /// With speed linear over the step, reaching `v1` covers `(v0 + v1)·dt/2`, and braking from `v1` to
    /// `vT` takes `(v1² − vT²)/(2a)` more; the largest `v1` whose total fits in the distance `d` is the
    /// positive root of `v1²/(2a) + v1·dt/2 − (d − v0·dt/2 + vT²/(2a)) = 0`. Exact for this integration,
    /// so the device comes to rest on the stop line rather than short of it or past it.
    private func allowedSpeed(from v0: Double, over dt: Double) -> Double {
        let decel = profile.deceleration
        let half = decel * dt / 2
        func braking(to speed: Double, within distance: Double) -> Double {
            let reach = max(0, distance - v0 * dt / 2)
            return (half * half + 2 * decel * reach + speed * speed).squareRoot() - half
        }
        var allowed = pieces[0].speedLimit
        var distanceToStart = -offset
        for (index, piece) in pieces.enumerated() {
            if index > 0 { allowed = min(allowed, braking(to: piece.speedLimit, within: distanceToStart)) }
            let distanceToEnd = distanceToStart + piece.length
            if piece.dwellAtEnd > 0 || (routeEnded && index == pieces.count - 1) {
                return min(allowed, braking(to: 0, within: distanceToEnd))
            }
            distanceToStart = distanceToEnd
            if distanceToStart > lookahead { break }
        }
        return allowed
    }

    /// Travels `distance` metres along the pieces, stopping early at a stop or the end of the route.
    private mutating func move(_ distance: Double) {
        var remaining = distance
        while remaining > 0, let piece = pieces.first {
            let left = piece.length - offset
            let travelled = min(remaining, left)
            let d = piece.advance(by: travelled, heading: heading, sinH: sinHeading, cosH: cosHeading)
            scale.offset(latitude: &state.latitude, longitude: &state.longitude, east: d.east, north: d.north)
            state.altitude += piece.grade * travelled
            if d.heading != heading {
                heading = d.heading
                sinHeading = d.sinH
                cosHeading = d.cosH
                state.course = Math.normalizedDegrees(heading * Math.degrees)
            }
            remaining -= travelled
            offset += travelled
            if offset >= piece.length - 1e-9 {
                pieces.removeFirst()
                offset = 0
                refill()
                if piece.dwellAtEnd > 0 {
                    dwell = piece.dwellAtEnd
                    state.speed = 0
                    break
                }
            }
        }
        if pieces.isEmpty { state.speed = 0 }
    }

    /// The true velocity in m/s, east and north components.
    var velocity: (east: Double, north: Double) {
        (state.speed * sinHeading, state.speed * cosHeading)
    }

    /// Keeps at least `lookahead` metres of route ahead, unless the route has ended.
    private mutating func refill() {
        var ahead = pieces.reduce(0) { $0 + $1.length } - offset
        while !routeEnded && ahead < lookahead {
            let count = pieces.count
            if source.produce(into: &pieces) {
                for piece in pieces[count...] { ahead += piece.length }
            } else {
                routeEnded = true
            }
        }
    }
}
