import LocationEngineTestKit
import Testing
@testable import LocationEngine

@Suite("Geofence spatial index")
struct RegionIndexTests {
    /// Random circles and polygons of 10 m–20 km around two places, one of them on the antimeridian.
    static func randomRegion(_ random: inout SplitMix64) throws -> GeofenceRegion {
        let centres = [GeoPoint(latitude: 48.85, longitude: 2.35), GeoPoint(latitude: -16.5, longitude: 179.95)]
        let centre = offset(centres[random.int(2)], north: 40_000 * (random.unit() - 0.5), east: 40_000 * (random.unit() - 0.5))
        let size = 10 * _pow(2000, random.unit())
        if random.oneIn(2) { return try .circle(centre: centre, radius: size) }
        // A star-shaped ring (never self-intersecting), concave more often than not.
        let count = 3 + random.int(12)
        let ring = (0..<count).map { i in
            let angle = 2 * Double.pi * Double(i) / Double(count)
            let r = size * (0.3 + 0.7 * random.unit())
            return offset(centre, north: r * _sin(angle), east: r * _cos(angle))
        }
        return try .polygon(ring)
    }

    static func randomPoint(_ random: inout SplitMix64) -> GeoPoint {
        let centres = [GeoPoint(latitude: 48.85, longitude: 2.35), GeoPoint(latitude: -16.5, longitude: -179.99)]
        return offset(centres[random.int(2)], north: 50_000 * (random.unit() - 0.5), east: 50_000 * (random.unit() - 0.5))
    }

    @Test("the grid reports exactly the boxes a query meets, against brute force, through insertions and removals")
    func gridMatchesBruteForce() throws {
        var random = SplitMix64(seed: 21)
        var grid = RegionGrid()
        var live: [Int32: GeoBounds] = [:]
        for slot in 0..<Int32(3000) {
            let bounds = try Self.randomRegion(&random).bounds
            grid.insert(slot, bounds: bounds)
            live[slot] = bounds
        }
        for round in 0..<2 {
            for _ in 0..<400 {
                let query = GeoBounds(around: Self.randomPoint(&random), metres: 5 * _pow(4000, random.unit()))
                var found: [Int32] = []
                grid.forEach(intersecting: query) { found.append($0) }
                let expected = live.filter { $0.value.intersects(query) }.keys.sorted()
                #expect(found.sorted() == expected)
                #expect(Set(found).count == found.count)
            }
            if round == 0 {
                for slot in live.keys.shuffled(using: &random).prefix(1500) {
                    grid.remove(slot)
                    live[slot] = nil
                }
                #expect(grid.count == 1500)
            }
        }
    }

    @Test("a box a hair narrower than a cell, whose edges round to cells two apart, is filed and found (it trapped)")
    func boxAHairNarrowerThanACell() throws {
        let region = try GeofenceRegion.polygon([
            GeoPoint(latitude: 10.0, longitude: -52.001037597656264), GeoPoint(latitude: 10.0, longitude: -51.99966430664064),
            GeoPoint(latitude: 10.000686645507812, longitude: -52.001037597656264),
        ])
        var grid = RegionGrid()
        grid.insert(0, bounds: region.bounds)
        for longitude in [-52.001, -52.0003, -51.9997] {
            var found: [Int32] = []
            grid.forEach(intersecting: GeoBounds(around: GeoPoint(latitude: 10.0001, longitude: longitude), metres: 1)) { found.append($0) }
            #expect(found == [0], "at \(longitude)")
        }
        grid.remove(0)
        #expect(grid.count == 0)
        var evaluator = try RegionEvaluator()
        evaluator.add(RequestID(rawValue: 1), region: region, options: GeofenceOptions())
        #expect(evaluator.count == 1)
    }

    @Test("the evaluator's decisions and nearest boundary match brute force over random regions and fixes")
    func evaluatorMatchesBruteForce() throws {
        var random = SplitMix64(seed: 2121)
        var evaluator = try RegionEvaluator(configuration: GeofenceConfiguration(unknownAfter: nil))
        var regions: [RequestID: GeofenceRegion] = [:]
        for raw in 1...2000 {
            let region = try Self.randomRegion(&random)
            regions[RequestID(rawValue: UInt64(raw))] = region
            evaluator.add(RequestID(rawValue: UInt64(raw)), region: region)
        }
        // The model: every region tested on every fix, with the same rule but no crossings (fixes here
        // are close together, so that no segment crosses a region the model would not see).
        var model: [RequestID: GeofenceState] = regions.mapValues { _ in .unknown }
        var position = Self.randomPoint(&random)
        for step in 0..<300 {
            position = offset(position, north: 200 * (random.unit() - 0.5), east: 200 * (random.unit() - 0.5))
            if random.oneIn(50) { position = Self.randomPoint(&random) }
            let accuracy = 3 + 60 * random.unit()
            let fix = Location(latitude: position.latitude, longitude: position.longitude, horizontalAccuracy: accuracy)
            let configuration = evaluator.configuration
            var expected: [RequestID: GeofenceTransition] = [:]
            let reach = configuration.decisionDistance(accuracy: accuracy)
            for (id, region) in regions {
                let d = region.signedDistance(to: position)
                let decision: GeofenceState? = d <= -reach ? .inside : d >= reach ? .outside : nil
                guard let decision, decision != model[id] else { continue }
                expected[id] = model[id] == .unknown ? .determined(decision) : decision == .inside ? .entered : .exited
                model[id] = decision
            }
            evaluator.receiveFix(fix, now: EngineInstant(.seconds(step)))
            var actual: [RequestID: [GeofenceTransition]] = [:]
            while let event = evaluator.nextEvent() { actual[event.id, default: []].append(event.transition) }
            // Crossings (entered + exited in one fix) are allowed where the model saw nothing.
            for (id, transitions) in actual where expected[id] == nil {
                #expect(transitions == [.entered, .exited], "\(id) at step \(step)")
            }
            for (id, transition) in expected {
                #expect(actual[id] == [transition], "\(id) at step \(step)")
            }
            let brute = regions.values.map { $0.boundaryDistanceAtMost(from: position) }.min()!
            let nearest = evaluator.distanceToNearestBoundary(from: position, within: 200_000)
            #expect(nearest == (brute <= 200_000 ? brute : nil))
        }
    }
}

#if canImport(Glibc)
import Glibc
func _pow(_ x: Double, _ y: Double) -> Double { Glibc.pow(x, y) }
#else
import Darwin
func _pow(_ x: Double, _ y: Double) -> Double { Darwin.pow(x, y) }
#endif
