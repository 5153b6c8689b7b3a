import Benchmark
import Foundation
import LocationEngine
import LocationEngineTestKit

/// The geofence evaluator: the cost of one fix with n regions monitored (alone, and with the reach the
/// core computes after it for the monitors' power), against testing every region on every fix, and the
/// memory a region takes.
///
/// The regions are circles of 50 m–2 km and 8-sided concave polygons of 100 m–1 km, spread over a
/// 300 km square (about one per km² at n = 100,000); the fixes follow a 15 m/s drive across it at 1 Hz
/// with 5 m accuracy, turning every minute.
func registerGeofenceBenchmarks(n: Int) {
    Benchmark("Geofences: one fix with n regions, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerFix], scalingFactor: .kilo)) { benchmark in
        var evaluator = geofenceEvaluator(regions: geofenceRegions(n))
        let fixes = geofenceDrive(count: benchmark.scaledIterations.count)
        var transitions = 0
        measure(benchmark, nanosecondsPerFix, operations: fixes.count) {
            for (second, fix) in fixes.enumerated() {
                evaluator.receiveFix(fix, now: EngineInstant(.seconds(1 + second)))
                while evaluator.nextEvent() != nil { transitions += 1 }
            }
        }
        blackHole(transitions)
    }

    // What a fix costs the core when the source describes its receiver: the evaluation, then the reach
    // the monitors' power demand is drawn from.
    Benchmark("Geofences: one fix and its reach with n regions, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerFix], scalingFactor: .kilo)) { benchmark in
        var evaluator = geofenceEvaluator(regions: geofenceRegions(n))
        let fixes = geofenceDrive(count: benchmark.scaledIterations.count)
        var transitions = 0
        var slack = 0.0
        measure(benchmark, nanosecondsPerFix, operations: fixes.count) {
            for (second, fix) in fixes.enumerated() {
                evaluator.receiveFix(fix, now: EngineInstant(.seconds(1 + second)))
                while evaluator.nextEvent() != nil { transitions += 1 }
                slack += evaluator.reach(from: fix)?.slack ?? 0
            }
        }
        blackHole(transitions)
        blackHole(slack)
    }

    Benchmark("Geofences: naive, every region tested on one fix, n=\(n)", configuration: .init(metrics: [.wallClock, nanosecondsPerFix])) { benchmark in
        let regions = geofenceRegions(n)
        let fixes = geofenceDrive(count: 20)
        var inside = 0
        measure(benchmark, nanosecondsPerFix, operations: fixes.count) {
            for fix in fixes {
                let position = GeoPoint(fix)
                for region in regions where region.signedDistance(to: position) <= 0 { inside += 1 }
            }
        }
        blackHole(inside)
    }

    Benchmark("Geofences: memory per region, n=\(n)", configuration: .init(metrics: [bytesPerRegion], maxIterations: 1)) { benchmark in
        let regions = geofenceRegions(n)
        let before = residentBytes()
        benchmark.startMeasurement()
        var evaluator = geofenceEvaluator(regions: regions)
        benchmark.stopMeasurement()
        // Every region decided once, as a running evaluator holds them.
        evaluator.receiveFix(geofenceDrive(count: 1)[0], now: EngineInstant(.seconds(1)))
        while evaluator.nextEvent() != nil {}
        benchmark.measurement(bytesPerRegion, (residentBytes() - before) / n)
        blackHole(evaluator.count)
    }
}

let bytesPerRegion = BenchmarkMetric.custom("bytes/region", polarity: .prefersSmaller, useScalingFactor: false)

/// The process's resident memory (Linux: /proc/self/statm), for the growth a structure causes. glibc's
/// and jemalloc's own statistics read zero or crash inside package-benchmark's process.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

private let geofenceOrigin = GeoPoint(latitude: 48.0, longitude: 11.0)

/// `point` moved `north` and `east` metres.
private func moved(_ point: GeoPoint, north: Double, east: Double) -> GeoPoint {
    let metresPerDegree = 6_371_008.8 * Double.pi / 180
    return GeoPoint(
        latitude: point.latitude + north / metresPerDegree,
        longitude: point.longitude + east / (metresPerDegree * cos(point.latitude * .pi / 180)))
}

func geofenceRegions(_ n: Int) -> [GeofenceRegion] {
    var random = SplitMix64(seed: 100_000)
    func unit() -> Double { Double(random.next() >> 11) * 0x1p-53 }
    return (0..<n).map { index in
        let centre = moved(geofenceOrigin, north: 300_000 * (unit() - 0.5), east: 300_000 * (unit() - 0.5))
        if index % 2 == 0 { return try! GeofenceRegion.circle(centre: centre, radius: 50 + 1950 * unit() * unit()) }
        let size = 100 + 900 * unit()
        let ring = (0..<8).map { vertex in
            let angle = Double(vertex) * .pi / 4
            let reach = vertex % 2 == 0 ? size : size * 0.5
            return moved(centre, north: reach * sin(angle), east: reach * cos(angle))
        }
        return try! GeofenceRegion.polygon(ring)
    }
}

func geofenceEvaluator(regions: [GeofenceRegion]) -> RegionEvaluator {
    var evaluator = try! RegionEvaluator()
    for (index, region) in regions.enumerated() { evaluator.add(RequestID(rawValue: UInt64(index + 1)), region: region) }
    // The first fix decides every region once; the benchmark measures the fixes after it.
    evaluator.receiveFix(geofenceDrive(count: 1)[0], now: .zero)
    while evaluator.nextEvent() != nil {}
    return evaluator
}

func geofenceDrive(count: Int) -> [Location] {
    var random = SplitMix64(seed: 15)
    var position = geofenceOrigin
    var heading = 0.0
    return (0..<count).map { second in
        if second % 60 == 0 { heading = Double(random.next() % 360) * .pi / 180 }
        position = moved(position, north: 15 * cos(heading), east: 15 * sin(heading))
        return Location(latitude: position.latitude, longitude: position.longitude, horizontalAccuracy: 5)
    }
}
