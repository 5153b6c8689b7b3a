/// Where a trajectory's pieces come from: an endless random road network, a fixed list, or nothing
/// (a device that does not move).
enum RouteSource: Sendable {
    /// Endless road-like legs and turns drawn from `random`.
    case random(MotionProfile, SeededGenerator)
    /// A fixed route; `next` is the index of the next piece to hand out.
    case fixed([PathPiece], next: Int)
    /// No route at all.
    case none

    /// Appends the next pieces of the route to `pieces`; returns `false` when the route has ended.
    mutating func produce(into pieces: inout [PathPiece]) -> Bool {
        switch self {
        case .none:
            return false
        case .fixed(let all, let next):
            guard next < all.count else { return false }
            pieces.append(all[next])
            self = .fixed(all, next: next + 1)
            return true
        case .random(let profile, var random):
            Self.appendLeg(profile: profile, random: &random, to: &pieces)
            self = .random(profile, random)
            return true
        }
    }

    /// One straight leg, perhaps ending in a stop, followed by a sharp turn or a gentle bend.
    private static func appendLeg(profile: MotionProfile, random: inout SeededGenerator, to pieces: inout [PathPiece]) {
        let cruise = profile.drawCruiseSpeed(using: &random)
        let grade = profile.maximumGrade * (2 * random.nextUnit() - 1)
        let dwell = random.chance(profile.stopProbability) ? random.uniform(profile.stopDuration) : 0
        pieces.append(
            PathPiece(
                length: random.uniform(profile.legLength), curvature: 0, speedLimit: cruise, dwellAtEnd: dwell,
                grade: grade
            )
        )
        let sharp = random.chance(profile.sharpTurnProbability)
        let sign: Double = random.chance(0.5) ? 1 : -1
        let angle = sharp ? random.uniform(80...100) * Math.radians : random.uniform(10...45) * Math.radians
        let radius = random.uniform(sharp ? profile.sharpTurnRadius : profile.bendRadius)
        pieces.append(arc(angle: sign * angle, radius: radius, cruise: cruise, grade: grade, profile: profile))
    }

    /// A circular arc turning by `angle` radians (positive = right) at `radius` metres.
    static func arc(angle: Double, radius: Double, cruise: Double, grade: Double, profile: MotionProfile) -> PathPiece {
        let turnSpeed = (profile.lateralAcceleration * radius).squareRoot()
        return PathPiece(
            length: radius * abs(angle), curvature: (angle < 0 ? -1 : 1) / radius,
            speedLimit: min(cruise, turnSpeed), dwellAtEnd: 0, grade: grade
        )
    }

    /// The pieces that follow `waypoints` in order, with the corners rounded off by arcs whose radius
    /// fits the profile and the adjacent legs.
    static func pieces(
        following waypoints: [Coordinate], profile: MotionProfile, random: inout SeededGenerator
    ) -> (pieces: [PathPiece], initialHeading: Double) {
        guard waypoints.count >= 2 else { return ([], 0) }
        var legs: [(length: Double, bearing: Double)] = []
        for (a, b) in zip(waypoints, waypoints.dropFirst()) {
            let midLatitude = (a.latitude + b.latitude) / 2 * Math.radians
            let (m, n) = WGS84.radii(latitude: midLatitude)
            var dLon = b.longitude - a.longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            let north = (b.latitude - a.latitude) * Math.radians * m
            let east = dLon * Math.radians * n * Math.cos(midLatitude)
            let length = Math.hypot(east, north)
            if length > 0.01 { legs.append((length, Math.atan2(east, north))) }
        }
        guard let first = legs.first else { return ([], 0) }
        // Tangent length cut from each end of each leg by the arcs at its corners.
        var cut = [Double](repeating: 0, count: legs.count + 1)
        var arcs: [PathPiece?] = Array(repeating: nil, count: legs.count)
        let speeds = legs.map { _ in profile.drawCruiseSpeed(using: &random) }
        for i in 1..<max(1, legs.count) {
            let turn = Math.wrappedRadians(legs[i].bearing - legs[i - 1].bearing)
            let magnitude = min(abs(turn), 179 * Math.radians)
            guard magnitude > 1e-4 else { continue }
            let nominal = magnitude > Double.pi / 4 ? profile.sharpTurnRadius.upperBound : profile.bendRadius.lowerBound
            let halfTan = Math.tan(magnitude / 2)
            let tangent = min(nominal * halfTan, 0.45 * min(legs[i - 1].length, legs[i].length))
            cut[i] = tangent
            arcs[i] = arc(
                angle: turn < 0 ? -magnitude : magnitude, radius: tangent / halfTan,
                cruise: min(speeds[i - 1], speeds[i]), grade: 0, profile: profile
            )
        }
        var pieces: [PathPiece] = []
        for i in legs.indices {
            if let arc = arcs[i] { pieces.append(arc) }
            let straight = legs[i].length - cut[i] - cut[i + 1]
            pieces.append(PathPiece(length: max(0.01, straight), curvature: 0, speedLimit: speeds[i], dwellAtEnd: 0, grade: 0))
        }
        return (pieces, first.bearing)
    }
}
