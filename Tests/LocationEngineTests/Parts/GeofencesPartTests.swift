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
        var power = SourcePlanner(sources: [SourceCapabilities(providesCourse: true, powerProfile: nil)], linger: .zero, powerDown: .fixedLinger, fallbackAfter: .seconds(30))
        let id = RequestID(rawValue: 1)
        geofences.waiting[id] = try Self.region()
        geofences.decide(by: Self.fix(east: 0, at: .zero), power: &power, besides: PowerDemand(), now: .zero)
        #expect(Self.drain(&geofences).isEmpty)
        let admitted = geofences.admit(id, now: .zero)
        let admittedTwice = geofences.admit(id, now: .zero)
        #expect(admitted && !admittedTwice)
        geofences.decide(by: Self.fix(east: 0, at: .zero + .seconds(1)), power: &power, besides: PowerDemand(), now: .zero + .seconds(1))
        #expect(Self.drain(&geofences) == [.determined(.inside)])
        #expect(geofences.evaluator.state(of: id) == .inside)
        #expect(geofences.alarmMoved && geofences.evaluator.nextDeadline != nil, "the unknown timeout is the deadline the settle step reads")
        geofences.alarmMoved = false
        geofences.remove(id)
        #expect(geofences.evaluator.count == 0)
        #expect(geofences.alarmMoved && geofences.evaluator.nextDeadline == nil, "its deadline went with the last region")
    }

    @Test("far from every boundary the monitors let a receiver sleep, unless a request demands their mode anyway; not in doubt, nor when the wake-up would come too soon for a restart")
    func sleepFarFromBoundaries() throws {
        var geofences = Geofences(configuration: GeofenceConfiguration())
        let id = RequestID(rawValue: 1)
        geofences.waiting[id] = try Self.region()
        _ = geofences.admit(id, now: .zero)

        var asleep = SourcePlanner(sources: [SourceCapabilities(providesCourse: true, powerProfile: .mt3339)], linger: .zero, powerDown: .restartAware, fallbackAfter: .seconds(30))
        var far = geofences
        far.decide(by: Self.fix(east: 50_000, at: .zero), power: &asleep, besides: PowerDemand(), now: .zero)
        #expect(asleep[.first].monitors.isSleeping(monitoring: true))
        #expect(far.evaluator.statesHeldUntil != nil)

        var busy = SourcePlanner(sources: [SourceCapabilities(providesCourse: true, powerProfile: .mt3339)], linger: .zero, powerDown: .restartAware, fallbackAfter: .seconds(30))
        var demand = PowerDemand()
        demand.add(Geofences.demandedMode)
        geofences.decide(by: Self.fix(east: 50_000, at: .zero), power: &busy, besides: demand, now: .zero)
        #expect(!busy[.first].monitors.isSleeping(monitoring: true))
        #expect(geofences.evaluator.statesHeldUntil == nil)

        var near = SourcePlanner(sources: [SourceCapabilities(providesCourse: true, powerProfile: .mt3339)], linger: .zero, powerDown: .restartAware, fallbackAfter: .seconds(30))
        var close = geofences
        // 25 m out: a 5 m fix must be 30 m across, so the region is in doubt, and the fix says nothing of a standstill.
        close.decide(by: Self.fix(east: 225, at: .zero), power: &near, besides: PowerDemand(), now: .zero)
        #expect(!near[.first].monitors.isSleeping(monitoring: true))

        // At 60 m/s, 31 m out, decided: decidable after 51 m of travel, 0.85 s; a restart takes 1 s, so a wake-up
        // would come before the fix: the receiver keeps tracking.
        var fast = Geofences(configuration: GeofenceConfiguration(maximumSpeed: 60))
        fast.waiting[id] = try Self.region()
        _ = fast.admit(id, now: .zero)
        var nearer = SourcePlanner(sources: [SourceCapabilities(providesCourse: true, powerProfile: .mt3339)], linger: .zero, powerDown: .restartAware, fallbackAfter: .seconds(30))
        fast.decide(by: Self.fix(east: 50_000, at: .zero), power: &nearer, besides: demand, now: .zero)
        fast.decide(by: Self.fix(east: 231, at: .zero + .seconds(1)), power: &nearer, besides: PowerDemand(), now: .zero + .seconds(1))
        #expect(fast.evaluator.state(of: id) == .outside)
        #expect(!nearer[.first].monitors.isSleeping(monitoring: true))
        #expect(fast.evaluator.statesHeldUntil == nil)
    }

    @Test("in doubt near a boundary, a still device lets the receiver sleep until it could have moved far enough to decide; a moving one, without a budget, does not")
    func stillInDoubtSleeps() throws {
        let configuration = GeofenceConfiguration(maximumSpeed: 30, maximumAcceleration: 1.5)
        func planner() -> SourcePlanner {
            SourcePlanner(sources: [SourceCapabilities(providesCourse: true, powerProfile: .mt3339)], linger: .zero, powerDown: .restartAware, fallbackAfter: .seconds(30))
        }
        func fix(east: Double, speed: Double?, at instant: EngineInstant) -> StampedFix {
            var stamped = Self.fix(east: east, at: instant)
            stamped.location.speed = speed
            return stamped
        }
        var geofences = Geofences(configuration: configuration)
        let id = RequestID(rawValue: 1)
        geofences.waiting[id] = (try GeofenceRegion.circle(centre: Self.centre, radius: 200), GeofenceOptions())
        _ = geofences.admit(id, now: .zero)
        var power = planner()
        geofences.decide(by: fix(east: 5000, speed: 0, at: .zero), power: &power, besides: PowerDemand(), now: .zero)
        #expect(geofences.evaluator.state(of: id) == .outside)

        // 10 m out, still: in doubt, but the truth must get 20 m in (a perfect fix's margin), and it may be 10 m
        // nearer than the 5 m fix says: 20 m away. From rest (plus 1 m/s for the speed's error) at 1.5 m/s²,
        // 20 = t + 0.75 t²; the MT3339 restarts in 1 s.
        let at = EngineInstant(.seconds(100))
        var still = geofences
        var stillPower = planner()
        still.decide(by: fix(east: 210, speed: 0, at: at), power: &stillPower, besides: PowerDemand(), now: at)
        #expect(still.evaluator.state(of: id) == .outside)
        let seconds = ((1 + 3 * 20.0).squareRoot() - 1) / 1.5
        let expected = at + .nanoseconds(Int64((seconds * 1e9).rounded(.down))) - .seconds(1)
        let wake = try #require(stillPower[.first].monitors.wakeAt)
        #expect(abs((wake - expected) / .milliseconds(1)) < 1)
        let held = try #require(still.evaluator.statesHeldUntil)
        #expect(abs((held - expected - .seconds(1)) / .milliseconds(1)) < 1)

        // The same fix moving at 3 m/s: the receiver keeps tracking.
        var moving = geofences
        var movingPower = planner()
        moving.decide(by: fix(east: 210, speed: 3, at: at), power: &movingPower, besides: PowerDemand(), now: at)
        #expect(movingPower[.first].monitors.wakeAt == nil)
        #expect(!movingPower[.first].monitors.isSleeping(monitoring: true))
    }
}
