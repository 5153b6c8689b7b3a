/// Great-circle arcs from one point, its direction from the Earth's centre worked out once for all of them.
struct GreatCircleArcs {
    private let origin: SIMD3<Double>
    private let latitude: Double

    init(from point: GeoPoint) {
        origin = Self.direction(of: point)
        latitude = abs(point.latitude)
    }

    /// The greatest absolute latitude, in degrees, on the shorter arc to `other`: an end's, or a vertex of the
    /// great circle (its nearest point to a pole) when the arc passes it.
    /// - Complexity: O(1).
    func poleMostLatitude(to other: GeoPoint) -> Double {
        let ends = max(latitude, abs(other.latitude))
        let target = Self.direction(of: other)
        let normal = Self.cross(origin, target)
        let length = (normal * normal).sum().squareRoot()
        guard length > 1e-15 else { return ends }
        let n = normal / length
        // The circle's northernmost point: the north pole's direction less its part along the normal; the
        // southernmost is its opposite.
        let top = SIMD3<Double>(0, 0, 1) - n.z * n
        let topLength = (top * top).sum().squareRoot()
        guard topLength > 1e-15 else { return ends }
        let north = top / topLength
        // A point of the circle lies on the arc when it is turned to from the origin and turns on to the target
        // in the arc's own direction.
        func isOnArc(_ vertex: SIMD3<Double>) -> Bool {
            (Self.cross(origin, vertex) * n).sum() >= 0 && (Self.cross(vertex, target) * n).sum() >= 0
        }
        guard isOnArc(north) || isOnArc(-north) else { return ends }
        return max(ends, _asin(min(1, abs(north.z))) * 180 / .pi)
    }

    private static func direction(of point: GeoPoint) -> SIMD3<Double> {
        let φ = point.latitude * .pi / 180, λ = point.longitude * .pi / 180
        return SIMD3(_cos(φ) * _cos(λ), _cos(φ) * _sin(λ), _sin(φ))
    }

    private static func cross(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
    }
}
