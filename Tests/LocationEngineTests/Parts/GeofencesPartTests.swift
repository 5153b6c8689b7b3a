@testable import LocationEngine
import Testing

/// The regions part on its own: a monitor's region decides nothing until admitted, and a fix far from
/// every boundary lets the power planner plan the monitors' sleep (while the regions hold their states).
@Suite("Geofences part")
struct GeofencesPartTests {
    static let centre = GeoPoint(latitude: 52.52, longitude: 13.405)

    static func region() throws -> (GeofenceRegion, GeofenceOptions) {
        (try GeofenceRegion.circle(centre: centre, radius: 200), GeofenceOptions())
    }

    static func fix(east metres: Double, at instant: EngineInstant) -> StampedFix {
        let point = offset(centre, north: 0, east: metres)
        return StampedFix(location: Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: 5), observedAt: instant)
    }

    static func drain(_ geofences: inout Geofences) -> [GeofenceTransition] {
        var transitions: [GeofenceTransition] = []
        while let event = geofences.evaluator.nextEvent() { transitions.append(event.transition) }
        return transitions
    }

    @Test("a waiting monitor's region decides nothing; admitted, the next fix decides it; removed, it is gone")
    func admissionAndRemoval() throws {
        var geofences = Geofences(configuration: GeofenceConfiguration())
        var wakeups = Timeline()
        var power = SourcePlanner(sources: [SourceCapabilities(providesCourse: true, powerProfile: nil)], linger: .zero, powerDown: .fixedLinger, fallbackAfter: .seconds(30))
        let id = RequestID(rawValue: 1)
        geofences.waiting[id] = try Self.region()
        geofences.decide(by: Self.fix(east: 0, at: .zero), power: &power, besides: PowerDemand(), now: .zero, on: &wakeups)
        #expect(Self.drain(&geofences).isEmpty)
        let admitted = geofences.admit(id)
        let admittedTwice = geofences.admit(id)
        #expect(admitted && !admittedTwice)
        geofences.decide(by: Self.fix(east: 0, at: .zero + .seconds(1)), power: &power, besides: PowerDemand(), now: .zero + .seconds(1), on: &wakeups)
        #expect(Self.drain(&geofences) == [.determined(.inside)])
        #expect(geofences.evaluator.state(of: id) == .inside)
        #expect(wakeups.alarm(.regions) != nil && wakeups.alarm(.regions) == geofences.evaluator.nextDeadline, "the unknown timeout is the alarm")
        geofences.remove(id, on: &wakeups)
        #expect(geofences.evaluator.count == 0)
        #expect(wakeups.alarm(.regions) == nil && wakeups.earliest == nil, "its alarm went with the last region")
    }

    @Test("far from every boundary the monitors let a receiver sleep, unless a request demands their mode anyway")
    func sleepFarFromBoundaries() throws {
        var geofences = Geofences(configuration: GeofenceConfiguration())
        var wakeups = Timeline()
        let id = RequestID(rawValue: 1)
        geofences.waiting[id] = try Self.region()
        _ = geofences.admit(id)

        var asleep = SourcePlanner(sources: [SourceCapabilities(providesCourse: true, powerProfile: .mt3339)], linger: .zero, powerDown: .restartAware, fallbackAfter: .seconds(30))
        var far = geofences
        far.decide(by: Self.fix(east: 50_000, at: .zero), power: &asleep, besides: PowerDemand(), now: .zero, on: &wakeups)
        #expect(asleep[.first].monitors.isSleeping(monitoring: true))
        #expect(far.evaluator.statesHeldUntil != nil)

        var busy = SourcePlanner(sources: [SourceCapabilities(providesCourse: true, powerProfile: .mt3339)], linger: .zero, powerDown: .restartAware, fallbackAfter: .seconds(30))
        var demand = PowerDemand()
        demand.add(Geofences.demandedMode)
        geofences.decide(by: Self.fix(east: 50_000, at: .zero), power: &busy, besides: demand, now: .zero, on: &wakeups)
        #expect(!busy[.first].monitors.isSleeping(monitoring: true))
        #expect(geofences.evaluator.statesHeldUntil == nil)

        var near = SourcePlanner(sources: [SourceCapabilities(providesCourse: true, powerProfile: .mt3339)], linger: .zero, powerDown: .restartAware, fallbackAfter: .seconds(30))
        var close = geofences
        close.decide(by: Self.fix(east: 250, at: .zero), power: &near, besides: PowerDemand(), now: .zero, on: &wakeups)
        #expect(!near[.first].monitors.isSleeping(monitoring: true))
    }
}
