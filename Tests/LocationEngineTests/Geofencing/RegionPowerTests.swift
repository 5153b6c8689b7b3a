import Testing
@testable import LocationEngine

/// The monitors' power demand drawn from the geometry (see <doc:Geofences>): they let the source sleep
/// until the truth could first be decidable against a region's state, far from every boundary and near
/// one; while a region is in doubt they keep it on.
@Suite("Region monitors' power from geometry")
struct RegionPowerTests {
    // A 200 m circle around the origin; with a 5 m fix it is decided 30 m across its boundary. The
    // MT3339 profile: a hot start takes 1 s, a step down to off pays for itself after about 0.25 s.
    // Default maximum speed: 30 m/s.
    static let timeToFirstFix = Duration.seconds(1)

    /// The earliest instant the 200 m circle could be decided against its state after a 5 m fix at `at`,
    /// `east` metres from its centre, at 30 m/s: the truth, within 10 m of the fix, must get 30 m across the
    /// boundary, so the device must cover the distance plus the 20 m margin. The test's own reckoning, from
    /// the geometry.
    static func decidable(east: Double, at: EngineInstant) -> EngineInstant {
        let distance = MachineHarness.regionOrigin.distance(to: offset(MachineHarness.regionOrigin, north: 0, east: east)) - 200
        return at + .nanoseconds(Int64(((distance + 20) / 30 * 1e9).rounded(.down)))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    @Test("far from the fence the source steps down, and restarts so that a fix comes when the fence could first be decided")
    func farSleeps() throws {
        var h = MachineHarness(powerProfile: .mt3339)
        h.monitor("depot")
        let log = h.drive(until: EngineInstant(.seconds(400)), timeToFirstFix: Self.timeToFirstFix, watched: "depot") { _ in 5000 }
        #expect(Array(h.sourceCommands.prefix(4)) == [.start(.best), .idle(.off), .start(.best), .idle(.off)])
        // The last fix before the step down (the source gives fixes until it steps down) plans the sleep;
        // the first fix after the restart comes at the decidable instant.
        let restart = try #require(log.starts.first)
        let planning = try #require(log.fixes.last { $0 < restart })
        let fixAfterRestart = try #require(log.fixes.first { $0 > restart })
        let decidable = Self.decidable(east: 5000, at: planning)
        #expect(fixAfterRestart <= decidable)
        #expect(Self.seconds(decidable - fixAfterRestart) < 0.001, "woken just in time, not earlier")
        let statistics = h.machine.statistics(now: EngineInstant(.seconds(400)))
        #expect(statistics.regionSleeps >= 2)
        #expect(statistics.regionSleepTime > .seconds(380))
        #expect(statistics.sourceOnTime < .seconds(20))
        // The gaps between fixes (about 159 s) exceed the unknown timeout: the certain state is held.
        #expect(log.transitions.map(\.0) == [.determined(.outside)])
    }

    @Test("a receiver slower to its first fix than its profile says: the monitors wake earlier by what it delivered, so the fix still comes by the decidable instant")
    func wakesByTheDeliveredFirstFix() throws {
        // The profile's hot start is 1 s; this receiver takes 3 s. It declares its first-fix times (4 s), so the
        // planner judges it: what it delivers replaces the declaration from its first fix on.
        // Far from the fence, at rest: the monitors sleep and restart the source again and again.
        func drive(declaring firstFix: Duration?) throws -> (late: [Double], starts: Int) {
            let capabilities = SourceCapabilities(
                providesCourse: true, powerProfile: .mt3339, firstFixByMode: firstFix.map { [.best: $0] } ?? [:])
            var h = MachineHarness(sources: [capabilities])
            h.monitor("depot")
            let log = h.drive(until: EngineInstant(.seconds(1000)), timeToFirstFix: .seconds(3), watched: "depot") { _ in 5000 }
            // For each restart: how long after the instant the fix before it planned for does the first fix come?
            let late = try log.starts.map { restart in
                let planning = try #require(log.fixes.last { $0 < restart })
                let fixAfterRestart = try #require(log.fixes.first { $0 > restart })
                return Self.seconds(fixAfterRestart - Self.decidable(east: 5000, at: planning))
            }
            return (late, log.starts.count)
        }
        let judged = try drive(declaring: .seconds(4))
        #expect(judged.starts >= 6)
        // The first start was a cold one, expected to take 35 s, and fixed in 3: nothing beyond the restart, so the
        // first sleep plans by the profile alone. Each restart then delivers 2 s beyond the profile's, and the record
        // (the mean of the last and the record) halves the lateness: 2 s, 1 s, 0.5 s, ...
        var expected = 2.0
        for late in judged.late {
            #expect(abs(late - expected) < 0.001, "the first fix came \(late) s after the decidable instant, not \(expected) s")
            expected /= 2
        }
        // A source that declares nothing is not judged: its monitors plan by the profile alone, and each fix comes 2 s late.
        let unjudged = try drive(declaring: nil)
        #expect(unjudged.starts >= 6)
        for late in unjudged.late { #expect(abs(late - 2) < 0.001) }
    }

    @Test("the monitors' sleep is a gap of known length: the source steps down at the fix that planned it, not a break-even later")
    func stepsDownAtOnce() throws {
        var h = MachineHarness(powerProfile: .mt3339)
        h.monitor("depot")
        h.now = EngineInstant(.seconds(1))
        h.fix(east: 5000)
        // No time passes: a gap the power policy cannot foresee would keep the source on for the break-even first.
        #expect(h.sourceCommands == [.start(.best), .idle(.off)])
        // A one-shot's gap is still one the policy cannot foresee: the source stays on through the break-even.
        var g = MachineHarness(powerProfile: .mt3339)
        g.oneShot("fix", .block)
        g.now = EngineInstant(.seconds(1))
        g.fix(5)
        #expect(g.results["fix"]?.count == 1)
        #expect(g.sourceCommands.count == 1)
    }

    @Test("a known state is held through the sleep; with no fix after the wake-up it becomes unknown from the decidable instant")
    func unknownAfterSleep() throws {
        var h = MachineHarness(powerProfile: .mt3339)
        h.monitor("depot")
        h.now = EngineInstant(.seconds(1))
        h.fix(east: 5000)
        let decidable = Self.decidable(east: 5000, at: h.now)
        // Through the step down and the restart, with no fix coming.
        while let next = h.machine.nextWakeup, next < decidable { h.advance(by: next - h.now) }
        #expect(h.sourceCommands == [.start(.best), .idle(.off), .start(.best)])
        h.advance(by: (decidable + .seconds(120) - .milliseconds(1)) - h.now)
        #expect(h.transitions["depot"] == [.determined(.outside)])
        h.advance(by: .milliseconds(1))
        #expect(h.transitions["depot"] == [.determined(.outside), .becameUnknown])
    }

    @Test("under reduced accuracy, with a coarse source chosen beside a GNSS that does not run, a coarse fix plans no sleep on the GNSS: the states go unknown from the last fix, as on a source without a receiver profile")
    func noSleepPlannedOnASourceNotChosen() {
        let gnss = SourceCapabilities(providesCourse: true, powerProfile: .mt3339)
        let coarse = SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.02))
        var h = MachineHarness(accuracy: .reduced, sources: [gnss, coarse])
        h.monitor("county", radius: 50_000)
        #expect(h.allSourceCommands.map(\.source) == [1], "the coarse source serves coarsened fixes")
        h.now = EngineInstant(.seconds(1))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 100), source: 1)
        #expect(h.transitions["county"] == [.determined(.inside)])
        let lastFix = h.now
        // The unknown timeout allows for the throttle's ten minutes between coarse fixes.
        let unknownAt = lastFix + .seconds(120) + ReducedAccuracyPolicy().minimumInterval
        h.advance(by: unknownAt - .milliseconds(1) - h.now)
        #expect(h.transitions["county"] == [.determined(.inside)])
        h.advance(by: .milliseconds(1))
        #expect(h.transitions["county"] == [.determined(.inside), .becameUnknown], "no sleep held the state")
        #expect(h.machine.statistics(now: h.now).regionSleeps == 0)
    }

    @Test("the monitors' sleeps are counted on whichever source they sleep on, not the first one only")
    func sleepsCountedOnTheirSource() {
        let coarse = SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.02))
        let gnss = SourceCapabilities(providesCourse: true, powerProfile: .mt3339)
        var h = MachineHarness(sources: [coarse, gnss])
        h.monitor("depot")
        h.now = EngineInstant(.seconds(1))
        let point = offset(MachineHarness.regionOrigin, north: 0, east: 5000)
        h.fix(Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: 5), source: 1)
        #expect(h.allSourceCommands.contains { $0.source == 1 && $0.command == .idle(.off) }, "the GNSS sleeps for the monitors")
        let statistics = h.machine.statistics(now: h.now + .seconds(10))
        #expect(statistics.regionSleeps == 1 && statistics.regionSleepTime == .seconds(10))
    }

    @Test("near the fence the source sleeps between fixes until the fence could be decided; a source without a receiver profile stays on")
    func nearSamplesByTheDecidableInstant() {
        var near = MachineHarness(powerProfile: .mt3339)
        near.monitor("depot")
        let log = near.drive(until: EngineInstant(.seconds(100)), timeToFirstFix: Self.timeToFirstFix, watched: "depot") { _ in 260 }
        // 60 m out: the truth must cover 60 + 20 m to be decidable inside, 2.67 s at 30 m/s; a restart takes 1 s.
        let gaps = zip(log.fixes, log.fixes.dropFirst()).map { $1 - $0 }
        #expect(gaps.count == 37)
        #expect(gaps.allSatisfy { abs(Self.seconds($0) - 80.0 / 30) < 0.001 })
        #expect(near.machine.statistics(now: near.now).regionSleeps == gaps.count + 1, "each fix planned a sleep")
        #expect(log.transitions.map(\.0) == [.determined(.outside)])

        var unprofiled = MachineHarness()
        unprofiled.monitor("depot")
        _ = unprofiled.drive(until: EngineInstant(.seconds(100)), timeToFirstFix: Self.timeToFirstFix, watched: "depot") { _ in 5000 }
        #expect(unprofiled.sourceCommands == [.start(.best)])
        #expect(unprofiled.machine.statistics(now: unprofiled.now).regionSleeps == 0)
    }

    @Test("another request keeps the source on, the monitors planning no sleep; a one-shot arriving while they sleep starts it")
    func composes() throws {
        var h = MachineHarness(powerProfile: .mt3339)
        h.monitor("depot")
        h.subscribe("track")
        h.now = EngineInstant(.seconds(1))
        h.fix(east: 5000)
        #expect(h.machine.statistics(now: h.now).regionSleeps == 0, "the subscription keeps it on: no sleep to plan")
        h.cancel("track")
        #expect(h.sourceCommands == [.start(.best)], "the monitors demand it until a fix says otherwise")
        h.now = EngineInstant(.seconds(2))
        h.fix(east: 5000)
        #expect(h.machine.statistics(now: h.now).regionSleeps == 1)
        while let next = h.machine.nextWakeup, next < EngineInstant(.seconds(10)) { h.advance(by: next - h.now) }
        #expect(h.sourceCommands == [.start(.best), .idle(.off)])

        h.advance(by: EngineInstant(.seconds(20)) - h.now)
        // Finer and fresher than the fix at 1 s: it needs the source.
        h.oneShot("where", .house, timeout: .seconds(30))
        #expect(h.sourceCommands.count == 3)
        guard case .start = h.sourceCommands.last else {
            Issue.record("the one-shot did not start the source: \(h.sourceCommands)")
            return
        }
        h.advance(by: .seconds(1))
        h.fix(east: 4500)
        #expect(h.results["where"]?.first?.status == .success)
        // The fix replans the sleep: the monitors wake for the new reachable instant.
        while let next = h.machine.nextWakeup, next < EngineInstant(.seconds(30)) { h.advance(by: next - h.now) }
        #expect(h.sourceCommands.last == .idle(.off))
        #expect(h.machine.nextWakeup == Self.decidable(east: 4500, at: EngineInstant(.seconds(21))) - Self.timeToFirstFix)
    }

    @Test("a region added while the monitors sleep starts the source at once")
    func newRegionWakes() {
        var h = MachineHarness(powerProfile: .mt3339)
        h.monitor("depot")
        h.now = EngineInstant(.seconds(1))
        h.fix(east: 5000)
        while let next = h.machine.nextWakeup, next < EngineInstant(.seconds(10)) { h.advance(by: next - h.now) }
        #expect(h.sourceCommands == [.start(.best), .idle(.off)])
        h.monitor("yard", radius: 1000)
        #expect(h.sourceCommands == [.start(.best), .idle(.off), .start(.best)])
    }

    @Test("driving at the maximum speed through the fence: each crossing is decided within one fix interval of being decidable")
    func crossingAfterSleep() throws {
        var h = MachineHarness(powerProfile: .mt3339)
        h.monitor("depot")
        // West at 30 m/s from 5 km east: the boundary at 200 m east is crossed at 160 s, the one at
        // 200 m west at 173.3 s; a fix decides 30 m (1 s) past a boundary.
        let log = h.drive(until: EngineInstant(.seconds(400)), timeToFirstFix: Self.timeToFirstFix, watched: "depot") {
            5000 - 30 * Self.seconds($0 - .zero)
        }
        #expect(log.transitions.map(\.0) == [.determined(.outside), .entered, .exited])
        let entered = try #require(log.transitions.first { $0.0 == .entered }?.1)
        let exited = try #require(log.transitions.first { $0.0 == .exited }?.1)
        #expect(entered <= EngineInstant(.seconds(160 + 1 + 1)))
        #expect(exited <= EngineInstant(.milliseconds(173_334 + 1000 + 1000)))
        let statistics = h.machine.statistics(now: EngineInstant(.seconds(400)))
        #expect(statistics.regionSleepTime > .seconds(300), "it slept on the way in and after leaving")
        #expect(log.starts.count >= 2)
    }

    @Test("an invalid maximum speed rejects every monitor, naming the option")
    func invalidSpeed() {
        for speed in [Double.nan, -30] {
            var h = MachineHarness(powerProfile: .mt3339)
            var configuration = h.machine.configuration
            configuration.geofences.maximumSpeed = speed
            h.machine = MachineHarness.Machine(configuration: configuration)
            h.monitor("depot")
            guard case .rejected(let reason)? = h.end("depot") else {
                Issue.record("not rejected: \(String(describing: h.end("depot")))")
                continue
            }
            #expect(reason.contains("maximumSpeed"))
            #expect(h.sourceCommands.isEmpty)
        }
    }
}
