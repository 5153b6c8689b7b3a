import LocationEngineTestKit
import Testing
@testable import LocationEngine

extension SplitMix64 {
    /// A uniform double in `0..<1`.
    mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// A standard normal deviate (Box–Muller).
    mutating func gaussian() -> Double {
        let u = max(unit(), 0x1p-60)
        return (-2 * _log(u)).squareRoot() * _cos(2 * .pi * unit())
    }
}

#if canImport(Glibc)
import Glibc
func _log(_ x: Double) -> Double { Glibc.log(x) }
#else
import Darwin
func _log(_ x: Double) -> Double { Darwin.log(x) }
#endif

@Suite("Geofence jitter")
struct JitterTests {
    /// A fix's reported accuracy is its 68 % radius: 1.515 σ for a two-dimensional Gaussian error of σ
    /// per axis.
    static let radius68 = 1.515

    /// 10,000 fixes at 1 Hz around a truth that stays `depth` metres on one side of the boundary (it
    /// walks along it), with σ drawn from 5–30 m for each fix: the region, once determined, never
    /// changes state. A naive point test on the same fixes flips hundreds of times. Then the truth
    /// moves 300 m across, and the region makes exactly one transition.
    @Test("10,000 fixes straddling a boundary, σ 5–30 m, truth never crossing: 0 transitions", arguments: [
        (shape: "circle", depth: 10.0), (shape: "circle", depth: -10.0), (shape: "square", depth: 10.0), (shape: "square", depth: -10.0),
    ])
    func jitter(shape: String, depth: Double) throws {
        let origin = GeoPoint(latitude: 47.37, longitude: 8.54)
        let region = shape == "circle" ? try GeofenceRegion.circle(centre: origin, radius: 500) : try square(origin, side: 1000)
        var evaluator = try RegionEvaluator(configuration: GeofenceConfiguration(unknownAfter: nil))
        let id = RequestID(rawValue: 1)
        evaluator.add(id, region: region)
        var random = SplitMix64(seed: 0x6e0f_e7ce ^ UInt64(bitPattern: Int64(depth)) ^ (shape == "circle" ? 1 : 2))
        // Determine the state from a fix well on the truth's side.
        let side = depth > 0 ? -1.0 : 1.0  // inside: towards the centre
        evaluator.receiveFix(fix(offset(origin, north: 0, east: 500 + side * 200), accuracy: 5), now: .zero)
        #expect(evaluator.nextEvent()?.transition == .determined(depth > 0 ? .inside : .outside))
        var transitions: [GeofenceTransition] = []
        var naiveFlips = 0
        var naiveInside: Bool?
        for second in 1...10_000 {
            // The truth walks up and down the eastern boundary, `depth` metres inside (or outside) it.
            let along = 300 * _sin(Double(second) / 500)
            let truthEast = (shape == "circle" ? (500 * 500 - along * along).squareRoot() : 500) - depth
            let sigma = 5 + 25 * random.unit()
            let point = offset(origin, north: along + sigma * random.gaussian(), east: truthEast + sigma * random.gaussian())
            evaluator.receiveFix(fix(point, accuracy: Self.radius68 * sigma), now: EngineInstant(.seconds(second)))
            while let event = evaluator.nextEvent() { transitions.append(event.transition) }
            let inside = region.contains(point)
            if let naiveInside, naiveInside != inside { naiveFlips += 1 }
            naiveInside = inside
        }
        #expect(transitions == [])
        #expect(naiveFlips > 500)
        // The control: a real crossing is reported, once.
        for second in 10_001...10_030 {
            evaluator.receiveFix(fix(offset(origin, north: 0, east: 500 - side * 300), accuracy: 5), now: EngineInstant(.seconds(second)))
            while let event = evaluator.nextEvent() { transitions.append(event.transition) }
        }
        #expect(transitions == [depth > 0 ? .exited : .entered])
    }

    func fix(_ point: GeoPoint, accuracy: Double) -> Location {
        Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: accuracy)
    }
}
