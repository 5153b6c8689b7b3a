import LocationEngine
import LocbenchModel
import NIOConcurrencyHelpers
import SyntheticGPS

/// The naive geofence design: the receiver always on at 1 Hz, every fence point-tested on every fix, a
/// transition whenever a test disagrees with the last one (no confidence, no hysteresis). The first fix
/// determines every fence.
enum NaiveGeofenceMonitor {
    static func run(scenario: Scenario, fences: [PlacedFence], duration: Double, persona: ReceiverPersona) -> GeofenceDesignRun {
        let source = SyntheticLocationSource(scenario: scenario, drive: .manual, persona: persona)
        let received = NIOLockedValueBox<[Location]>([])
        source.start(mode: .best, events: SourceEventSink { event in
            if case .location(let location, _) = event { received.withLockedValue { $0.append(location) } }
        })
        let regions = fences.map(\.region)
        var inside = [Bool?](repeating: nil, count: regions.count)
        var reports: [ReportedTransition] = []
        let seconds = Int(duration)
        var fixes = [GeoPoint?](repeating: nil, count: seconds + 1)
        var fixCount = 0
        var fixAccuracies = [Double?](repeating: nil, count: seconds + 1)
        let cpuStart = ProcessStats.cpuSeconds()
        for second in 1...max(1, seconds) {
            source.advance(to: .seconds(second))
            for location in received.withLockedValue({ batch in defer { batch.removeAll(keepingCapacity: true) }; return batch }) {
                let point = GeoPoint(location)
                fixes[second] = point
                fixCount += 1
                fixAccuracies[second] = location.horizontalAccuracy
                for (fence, region) in regions.enumerated() {
                    let now = region.contains(point)
                    guard now != inside[fence] else { continue }
                    let kind: ReportedTransition.Kind = inside[fence] == nil ? .determined(inside: now) : now ? .entered : .exited
                    inside[fence] = now
                    reports.append(ReportedTransition(fence: fence, kind: kind, seconds: Double(second)))
                }
            }
        }
        let cpu = ProcessStats.cpuSeconds() - cpuStart
        let meter = source.energyMeter
        let meteredJoules = meter?.energy ?? 0
        source.stop()
        return GeofenceDesignRun(
            reports: reports, fixes: fixes, fixAccuracies: fixAccuracies, modes: [PowerMode?](repeating: .best, count: seconds + 1),
            meteredJoules: meteredJoules, meter: meter, cpuMicrosecondsPerFix: fixCount == 0 ? 0 : cpu * 1e6 / Double(fixCount), violations: [])
    }
}
