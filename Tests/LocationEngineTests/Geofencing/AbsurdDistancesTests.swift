import Testing
@testable import LocationEngine

/// What the geofencing arithmetic gives for distances and times no valid input produces today: each is bounded
/// before it becomes an integer, so a future path that produced one could not trap.
@Suite("Geofencing: absurd distances and travel times are bounded")
struct AbsurdDistancesTests {
    @Test("a travel time that is not a number, negative or past the horizon becomes a duration within zero and the horizon")
    func travelTimes() {
        #expect(RegionReach.duration(seconds: .nan) == .zero, "not a number: look again at once")
        #expect(RegionReach.duration(seconds: -1) == .zero)
        #expect(RegionReach.duration(seconds: -.infinity) == .zero)
        #expect(RegionReach.duration(seconds: .infinity) == RegionReach.horizon)
        #expect(RegionReach.duration(seconds: 1e300) == RegionReach.horizon)
        #expect(RegionReach.duration(seconds: 12.5) == .milliseconds(12_500))
    }

    @Test("a box around a point reaching a distance that is not a number covers the world; a negative one, only the point")
    func boxes() {
        let point = GeoPoint(latitude: 48, longitude: 11)
        let world = GeoBounds(around: point, metres: .nan)
        #expect(world.minLatitude == -90 && world.maxLatitude == 90 && world.longitudeSpan == 360)
        let none = GeoBounds(around: point, metres: -.infinity)
        #expect(none.minLatitude == 48 && none.maxLatitude == 48 && none.longitudeSpan == 0)
        // The index answers both without a trap: the world holds the region, the point's own box too.
        var grid = RegionGrid()
        grid.insert(0, bounds: GeoBounds(around: point, metres: 10))
        var found: [Int32] = []
        grid.forEach(intersecting: world) { found.append($0) }
        grid.forEach(intersecting: none) { found.append($0) }
        #expect(found == [0, 0])
    }
}
