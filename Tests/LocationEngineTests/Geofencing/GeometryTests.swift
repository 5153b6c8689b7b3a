import Testing
@testable import LocationEngine

/// A coordinate `north` and `east` metres from `origin` (a local offset, good to centimetres at these scales).
func offset(_ origin: GeoPoint, north: Double, east: Double) -> GeoPoint {
    let latitude = origin.latitude + north / metresPerDegree
    let longitude = origin.longitude + east / (metresPerDegree * _cos(origin.latitude * .pi / 180))
    return GeoPoint(latitude: latitude, longitude: wrappedDegrees(longitude))
}

/// A square polygon of side `side` metres centred on `centre`.
func square(_ centre: GeoPoint, side: Double) throws(GeofenceError) -> GeofenceRegion {
    let h = side / 2
    return try .polygon([
        offset(centre, north: -h, east: -h), offset(centre, north: -h, east: h),
        offset(centre, north: h, east: h), offset(centre, north: h, east: -h),
    ])
}

@Suite("Geofence geometry")
struct GeometryTests {
    let berlin = GeoPoint(latitude: 52.52, longitude: 13.405)

    @Test("a circle's signed distance is the great-circle distance to its centre less its radius")
    func circleDistance() throws {
        let circle = try GeofenceRegion.circle(centre: berlin, radius: 150)
        #expect(abs(circle.signedDistance(to: berlin) + 150) < 1e-9)
        let north = offset(berlin, north: 1000, east: 0)
        #expect(abs(circle.signedDistance(to: north) - 850) < 0.5)
        #expect(circle.contains(offset(berlin, north: 0, east: 149)))
        #expect(!circle.contains(offset(berlin, north: 0, east: 151)))
    }

    @Test("bad circles are rejected with a typed error")
    func badCircles() {
        #expect(throws: GeofenceError.invalidCentre) { try GeofenceRegion.circle(centre: GeoPoint(latitude: .nan, longitude: 0), radius: 10) }
        #expect(throws: GeofenceError.invalidCentre) { try GeofenceRegion.circle(centre: GeoPoint(latitude: 0, longitude: 181), radius: 10) }
        #expect(throws: GeofenceError.invalidRadius) { try GeofenceRegion.circle(centre: berlin, radius: -5) }
        #expect(throws: GeofenceError.invalidRadius) { try GeofenceRegion.circle(centre: berlin, radius: 0) }
        #expect(throws: GeofenceError.invalidRadius) { try GeofenceRegion.circle(centre: berlin, radius: .infinity) }
        #expect(throws: GeofenceError.invalidRadius) { try GeofenceRegion.circle(centre: berlin, radius: .nan) }
        #expect(throws: GeofenceError.regionTooLarge) { try GeofenceRegion.circle(centre: berlin, radius: 60_000) }
        #expect(throws: GeofenceError.tooCloseToPole) {
            try GeofenceRegion.circle(centre: GeoPoint(latitude: 84.95, longitude: 0), radius: 10_000)
        }
        #expect(throws: GeofenceError.tooCloseToPole) { try GeofenceRegion.circle(centre: GeoPoint(latitude: -90, longitude: 0), radius: 10) }
    }

    @Test("a spike or a touch along a diagonal edge is refused too, though its vertex lands a few nanometres off the edge once projected")
    func diagonalSpikesAndTouches() {
        for i in 0..<50 {
            let a = GeoPoint(latitude: 50 + 0.01 * Double(i), longitude: 10)
            let b = GeoPoint(latitude: a.latitude + 0.002, longitude: 10.002)
            let middle = GeoPoint(latitude: a.latitude + 0.001, longitude: 10.001)
            let d = GeoPoint(latitude: a.latitude - 0.002, longitude: 10.002)
            #expect(throws: GeofenceError.self, "spike \(i)") { try GeofenceRegion.polygon([a, b, middle, d]) }
            // The middle of edge 0 as a vertex further on: the ring touches itself there.
            let touching = [a, b, GeoPoint(latitude: a.latitude + 0.002, longitude: 9.998), middle, GeoPoint(latitude: a.latitude + 0.0015, longitude: 9.999)]
            #expect(throws: GeofenceError.self, "touch \(i)") { try GeofenceRegion.polygon(touching) }
        }
        // A vertex repeated a few millimetres off (as GIS exports have them) is no touch: an edge shorter than a
        // centimetre is no stretch.
        let square = [
            GeoPoint(latitude: 50, longitude: 10), GeoPoint(latitude: 50, longitude: 10.001), GeoPoint(latitude: 50.00000003, longitude: 10.001),
            GeoPoint(latitude: 50.001, longitude: 10.001), GeoPoint(latitude: 50.001, longitude: 10), GeoPoint(latitude: 50.00000002, longitude: 10.00000002),
        ]
        #expect(throws: Never.self) { try GeofenceRegion.polygon(square) }
        // A ring whose edges come no nearer than a metre is simple.
        let corner = GeoPoint(latitude: 50, longitude: 10)
        #expect(throws: Never.self) {
            try GeofenceRegion.polygon([
                corner, GeoPoint(latitude: 50.002, longitude: 10.002), GeoPoint(latitude: 50.002, longitude: 9.998),
                GeoPoint(latitude: 50.00101, longitude: 10.001),
            ])
        }
    }

    @Test("bad rings are rejected with a typed error, an absurd one before any work")
    func badRings() {
        let a = berlin, b = offset(berlin, north: 0, east: 100), c = offset(berlin, north: 100, east: 100), d = offset(berlin, north: 100, east: 0)
        #expect(throws: GeofenceError.tooFewVertices(2)) { try GeofenceRegion.polygon([a, b]) }
        #expect(throws: GeofenceError.tooFewVertices(2)) { try GeofenceRegion.polygon([a, b, b, a]) }
        #expect(throws: GeofenceError.tooFewVertices(0)) { try GeofenceRegion.polygon([]) }
        #expect(throws: GeofenceError.invalidVertex(at: 1)) { try GeofenceRegion.polygon([a, GeoPoint(latitude: .infinity, longitude: 0), c]) }
        #expect(throws: GeofenceError.degenerateRing) { try GeofenceRegion.polygon([a, b, offset(berlin, north: 0, east: 200)]) }
        // A bow tie: a→c crosses b→d.
        #expect(throws: GeofenceError.selfIntersecting(edge: 0, other: 2)) { try GeofenceRegion.polygon([a, c, b, d]) }
        // A spike doubling back along an edge.
        #expect(throws: GeofenceError.selfIntersecting(edge: 1, other: 2)) {
            try GeofenceRegion.polygon([a, b, offset(berlin, north: 0, east: 200), offset(berlin, north: 0, east: 150), c])
        }
        // A vertex touching a non-adjacent edge.
        #expect(throws: GeofenceError.self) {
            try GeofenceRegion.polygon([a, b, c, offset(berlin, north: 0, east: 50), d])
        }
        // Two distinct vertices, repeated but not next to each other.
        #expect(throws: GeofenceError.tooFewVertices(2)) { try GeofenceRegion.polygon([a, b, a, b]) }
        let million = Array(repeating: a, count: 1_000_000)
        #expect(throws: GeofenceError.tooManyVertices(1_000_000)) { try GeofenceRegion.polygon(million) }
        let tooMany = (0..<1025).map { i in offset(berlin, north: 1000 * _sin(Double(i) * 2 * .pi / 1025), east: 1000 * _cos(Double(i) * 2 * .pi / 1025)) }
        #expect(throws: GeofenceError.tooManyVertices(1025)) { try GeofenceRegion.polygon(tooMany) }
        #expect(throws: GeofenceError.tooCloseToPole) {
            try GeofenceRegion.polygon([GeoPoint(latitude: 85.5, longitude: 0), GeoPoint(latitude: 85.5, longitude: 1), GeoPoint(latitude: 85.4, longitude: 1)])
        }
        #expect(throws: GeofenceError.regionTooLarge) { try square(berlin, side: 120_000) }
    }

    @Test("a ring of the largest allowed size is accepted, closed or not, in either direction")
    func goodRings() throws {
        let circle = (0..<1024).map { i in offset(berlin, north: 1000 * _sin(Double(i) * 2 * .pi / 1024), east: 1000 * _cos(Double(i) * 2 * .pi / 1024)) }
        let region = try GeofenceRegion.polygon(circle)
        #expect(abs(region.signedDistance(to: berlin) + 1000) < 1)
        let closed = try GeofenceRegion.polygon(circle.reversed() + [circle.last!])
        #expect(abs(closed.signedDistance(to: offset(berlin, north: 0, east: 1100)) - 100) < 1)
    }

    @Test("a concave polygon: the notch is outside, the arms inside, distances to the nearest edge")
    func concave() throws {
        // A U open to the north: 300 m wide, 300 m tall, a 100 m wide notch 200 m deep.
        let o = berlin
        let u = try GeofenceRegion.polygon([
            offset(o, north: 0, east: 0), offset(o, north: 0, east: 300), offset(o, north: 300, east: 300),
            offset(o, north: 300, east: 200), offset(o, north: 100, east: 200), offset(o, north: 100, east: 100),
            offset(o, north: 300, east: 100), offset(o, north: 300, east: 0),
        ])
        let notch = offset(o, north: 250, east: 150)
        #expect(!u.contains(notch))
        #expect(abs(u.signedDistance(to: notch) - 50) < 0.1)
        let leftArm = offset(o, north: 250, east: 50)
        #expect(abs(u.signedDistance(to: leftArm) + 50) < 0.1)
        let base = offset(o, north: 50, east: 150)
        #expect(abs(u.signedDistance(to: base) + 50) < 0.1)
        // Straight across the notch, from one side of it to the other above the base: it crosses the arms.
        #expect(u.isCrossed(from: offset(o, north: 250, east: -50), to: offset(o, north: 250, east: 350)))
        // Down the notch and back out: it never enters.
        #expect(!u.isCrossed(from: offset(o, north: 350, east: 150), to: notch))
    }

    @Test("a region across the antimeridian is continuous; its box is small")
    func antimeridian() throws {
        let dateLine = GeoPoint(latitude: -16.5, longitude: 180)
        let fence = try square(dateLine, side: 2000)
        #expect(fence.bounds.longitudeSpan < 0.1)
        for longitude in [180.0, -180.0, 179.995, -179.995] {
            #expect(fence.contains(GeoPoint(latitude: -16.5, longitude: longitude)))
        }
        let east = offset(dateLine, north: 0, east: 1500)
        #expect(east.longitude < 0)
        #expect(abs(fence.signedDistance(to: east) - 500) < 1)
        let west = offset(dateLine, north: 0, east: -1500)
        #expect(abs(fence.signedDistance(to: west) - 500) < 1)
        #expect(fence.isCrossed(from: west, to: east))
        let circle = try GeofenceRegion.circle(centre: GeoPoint(latitude: 0, longitude: -179.999), radius: 1000)
        #expect(circle.contains(GeoPoint(latitude: 0, longitude: 179.998)))
        #expect(circle.bounds.intersects(fence.bounds) == false)
        #expect(circle.bounds.intersects(GeoBounds(around: GeoPoint(latitude: 0, longitude: 179.99), metres: 1000)))
    }

    @Test("a ring on the antimeridian may be written with 180 or −180: closed with the other, it is the same ring")
    func antimeridianWrittenBothWays() throws {
        let points: [(Double, Double)] = [(10, 180), (10, -179.9), (10.1, -179.9), (10.1, 179.9), (10, 179.9), (10, -180)]
        let fence = try GeofenceRegion.polygon(points.map { GeoPoint(latitude: $0.0, longitude: $0.1) })
        #expect(fence.contains(GeoPoint(latitude: 10.05, longitude: 180)))
        #expect(fence.contains(GeoPoint(latitude: 10.05, longitude: -179.95)))
        // Two consecutive vertices on the meridian, one written each way, are one vertex.
        let twice = [(10.0, 179.9), (10.0, 180.0), (10.0, -180.0), (10.1, -179.9), (10.1, 179.9)]
        #expect(throws: Never.self) { try GeofenceRegion.polygon(twice.map { GeoPoint(latitude: $0.0, longitude: $0.1) }) }
    }

    @Test("a polygon's distances agree with great-circle distances at high latitude")
    func highLatitude() throws {
        let north = GeoPoint(latitude: 70, longitude: 25)
        let fence = try square(north, side: 20_000)
        for (dn, de) in [(0.0, 10_100.0), (10_100.0, 0.0), (-10_050.0, 3_000.0), (3_000.0, -10_200.0)] {
            let point = offset(north, north: dn, east: de)
            // The nearest point of the boundary, and the great-circle distance to it.
            let foot = dn.magnitude > de.magnitude
                ? offset(north, north: dn.sign == .minus ? -10_000 : 10_000, east: de)
                : offset(north, north: dn, east: de.sign == .minus ? -10_000 : 10_000)
            let expected = point.distance(to: foot)
            #expect(abs(fence.signedDistance(to: point) - expected) < expected * 0.03)
        }
    }

    @Test("boxes: overlap and union across the antimeridian")
    func boxes() {
        let west = GeoBounds(around: GeoPoint(latitude: 0, longitude: 179.9), metres: 1000)
        let east = GeoBounds(around: GeoPoint(latitude: 0, longitude: -179.9), metres: 1000)
        #expect(!west.intersects(east))
        let both = west.union(east)
        #expect(both.longitudeSpan < 0.3)
        #expect(both.intersects(GeoBounds(around: GeoPoint(latitude: 0, longitude: 180), metres: 10)))
        #expect(!both.intersects(GeoBounds(around: GeoPoint(latitude: 0, longitude: 0), metres: 10)))
        let polar = GeoBounds(around: GeoPoint(latitude: 89.99, longitude: 10), metres: 5000)
        #expect(polar.longitudeSpan == 360)
        #expect(polar.intersects(GeoBounds(around: GeoPoint(latitude: 89.98, longitude: -170), metres: 10)))
    }
}
