import Testing
@testable import LocationEngine

/// Region monitors in the core: every rule of a request applies to them (see <doc:Geofences>).
@Suite("Region monitors in the core")
struct RegionMonitorTests {
    // A 200 m circle; with a 5 m fix, decided 30 m across its boundary.

    @Test("a monitor starts the source, reports the initial state, then entries and exits; cancel stops it")
    func lifecycle() {
        var h = MachineHarness()
        h.monitor("depot")
        #expect(h.sourceCommands == [.start(.best)])
        #expect(h.machine.monitoredRegions == 1)
        h.fix(east: 1000)
        h.fix(east: 100)
        h.fix(east: 215)
        h.fix(east: 300)
        #expect(h.transitions["depot"] == [.determined(.outside), .entered, .exited])
        #expect(h.events["depot"] == nil, "a monitor is never offered fixes")
        h.cancel("depot")
        #expect(h.cancelled == ["depot"])
        #expect(h.sourceCommands == [.start(.best), .stop])
        #expect(h.machine.monitoredRegions == 0)
        h.fix(east: 0)
        #expect(h.transitions["depot"]?.count == 3)
    }

    @Test("force-complete, a fatal source error and shutdown each end a monitor exactly once")
    func endings() {
        var h = MachineHarness()
        h.monitor("a")
        h.monitor("b")
        h.monitor("c")
        h.fix(east: 0)
        h.forceComplete("a")
        h.forceComplete("a")
        #expect(h.end("a") == .forceCompleted)
        h.fatalError()
        #expect(h.end("b") == .failed(SourceError(code: "test.fatal", message: "scripted")))
        #expect(h.end("c") == .failed(SourceError(code: "test.fatal", message: "scripted")))
        h.monitor("d")
        h.shutdown()
        h.shutdown()
        h.monitor("e")
        #expect(h.end("d") == .shutDown)
        #expect(h.end("e") == .shutDown)
        for tag in ["a", "b", "c", "d", "e"] { #expect(h.endings(tag) == 1, "\(tag)") }
        #expect(h.machine.monitoredRegions == 0)
        #expect(h.machine.nextWakeup == nil)
    }

    @Test("denial ends every monitor once; a monitor waiting for authorization decides nothing until admitted")
    func authorization() {
        var h = MachineHarness(authorization: .notDetermined)
        h.monitor("waiting")
        #expect(h.authorizationRequests == 1)
        #expect(h.machine.monitoredRegions == 0)
        h.fix(east: 0)
        #expect(h.transitions["waiting"] == nil)
        h.authorize(.authorized)
        #expect(h.machine.monitoredRegions == 1)
        h.fix(east: 0)
        #expect(h.transitions["waiting"] == [.determined(.inside)])
        h.authorize(.unauthorized(.denied))
        #expect(h.end("waiting") == .unauthorized(.denied))
        #expect(h.endings("waiting") == 1)
        #expect(h.machine.monitoredRegions == 0)
        h.monitor("refused")
        #expect(h.end("refused") == .unauthorized(.denied))
    }

    @Test("a handler cancelling another monitor during a delivery: that monitor hears only its cancellation")
    func reentrantCancel() {
        var h = MachineHarness()
        h.monitor("first")
        h.monitor("second")
        h.whileDelivering = { tag in tag == "first" ? ([("second", .cancel)], .zero) : nil }
        h.fix(east: 0)
        #expect(h.transitions["first"] == [.determined(.inside)])
        #expect(h.transitions["second"] == nil)
        #expect(h.cancelled == ["second"])
        h.whileDelivering = { tag in tag == "first" ? ([("first", .forceComplete)], .zero) : nil }
        h.fix(east: 1000)
        #expect(h.transitions["first"] == [.determined(.inside), .exited])
        #expect(h.end("first") == .forceCompleted)
    }

    @Test("mid-delivery a revocation applies at once, though a dwell due before it waits for the delivery's end: the monitor ends, once, and never hears the dwell after access was lost")
    func aRevocationMidDeliveryGoesBeforeAWaitingDwell() {
        var h = MachineHarness()
        h.monitor("depot", options: GeofenceOptions(loiteringDelay: .seconds(1)))
        h.fix(east: 0)
        h.receive(AuthorizationState(status: .denied, accuracy: .full), after: .milliseconds(1_500))
        h.now = h.now + .seconds(2)
        // A handler of a long delivery passes the time: the dwell (due at 1 s) waits for the delivery's end,
        // the denial (1.5 s) does not — nothing about a place goes out after access is lost.
        h.carryOut(h.machine.advanceTime(now: h.now, at: .midDelivery))
        #expect(h.end("depot") == .unauthorized(.denied))
        h.carryOut(h.machine.advanceTime(now: h.now))
        #expect(h.transitions["depot"] == [.determined(.inside)])
        #expect(h.endings("depot") == 1)
    }

    @Test("dwell and the unknown timeout wake the core at exactly their instant")
    func timeline() {
        var h = MachineHarness()
        h.monitor("site", options: GeofenceOptions(loiteringDelay: .seconds(30)))
        h.fix(east: 0)
        #expect(h.machine.nextWakeup == EngineInstant(.seconds(30)))
        h.advance(by: .seconds(30))
        #expect(h.transitions["site"] == [.determined(.inside), .dwelled])
        #expect(h.machine.nextWakeup == EngineInstant(.seconds(120)))
        h.advance(by: .seconds(90))
        #expect(h.transitions["site"] == [.determined(.inside), .dwelled, .becameUnknown])
    }

    @Test("an aged fix decides at the instant it was taken: its transitions carry it, dwell and unknown count from it")
    func agedFix() {
        var h = MachineHarness()
        h.monitor("site", options: GeofenceOptions(loiteringDelay: .seconds(30)))
        h.advance(by: .seconds(10))
        h.fix(east: 0, age: .seconds(4))
        #expect(h.transitions["site"] == [.determined(.inside)])
        #expect(h.transitionInstants["site"] == [EngineInstant(.seconds(6))], "the fix was taken at 10 s less its 4 s age")
        #expect(h.machine.nextWakeup == EngineInstant(.seconds(36)), "the dwell counts from the fix's instant")
        h.advance(by: .seconds(26))
        #expect(h.transitions["site"] == [.determined(.inside), .dwelled])
        #expect(h.transitionInstants["site"]?.last == EngineInstant(.seconds(36)))
        #expect(h.machine.nextWakeup == EngineInstant(.seconds(126)), "unknown 2 min after the fix was taken")

        // A dwell already due when the aged fix arrives comes at once, with its own instant.
        h.monitor("quick", options: GeofenceOptions(loiteringDelay: .seconds(2)))
        h.advance(by: .seconds(10))
        h.fix(east: 0, age: .seconds(5))
        #expect(h.transitions["quick"] == [.determined(.inside), .dwelled])
        #expect(h.transitionInstants["quick"] == [EngineInstant(.seconds(41)), EngineInstant(.seconds(43))])
    }

    @Test("invalid options end a monitor at once, rejected, and schedule nothing")
    func rejected() {
        var h = MachineHarness()
        h.monitor("bad", options: GeofenceOptions(loiteringDelay: .seconds(-1)))
        #expect(h.end("bad") == .rejected(reason: GeofenceError.invalidOption("loiteringDelay").description))
        #expect(h.sourceCommands.isEmpty)
        #expect(h.machine.nextWakeup == nil)
        #expect(!h.machine.isPending(h.ids["bad"]!))
    }

    @Test("an invalid geofence configuration rejects every monitor, saying why")
    func invalidConfiguration() {
        var configuration = MachineHarness.Machine.Configuration()
        configuration.geofences.minimumMargin = .nan
        var h = MachineHarness()
        h.machine = MachineHarness.Machine(configuration: configuration)
        h.monitor("x")
        #expect(h.end("x") == .rejected(reason: GeofenceError.invalidOption("minimumMargin").description))
    }

    @Test("reduced accuracy: a region smaller than the coarsening grid is kept unknown; a large one is decided")
    func reducedAccuracy() {
        var h = MachineHarness(accuracy: .reduced, reducedAccuracy: ReducedAccuracyPolicy(gridSpacing: 3000, minimumInterval: .zero))
        h.monitor("small", radius: 200)
        h.monitor("large", radius: 40_000)
        h.fix(east: 0)
        h.fix(east: 2000)
        #expect(h.transitions["small"] == nil)
        #expect(h.transitions["large"] == [.determined(.inside)])
        #expect(h.machine.regionState(h.ids["small"]!) == .unknown)
        #expect(h.end("small") == nil, "kept, unknown")
    }

    @Test("reduced accuracy: a region the throttled fixes keep deciding does not go unknown between them, and dwells")
    func reducedAccuracyDoesNotFlap() {
        var h = MachineHarness(accuracy: .reduced)  // one coarse fix per 10 minutes
        h.monitor("county", radius: 40_000, options: GeofenceOptions(loiteringDelay: .seconds(300)))
        h.fix(east: 0)
        for _ in 0..<1500 {
            h.advance(by: .seconds(1))
            h.fix(east: 0)
        }
        #expect(h.transitions["county"] == [.determined(.inside), .dwelled])
    }

    @Test("the unknown timeout planned under reduced accuracy stands when full accuracy returns, and is never moved into the past")
    func theReducedAccuracyAllowanceMovesNoPlannedDeadline() {
        var h = MachineHarness(accuracy: .reduced)
        h.monitor("county", radius: 40_000, options: GeofenceOptions(loiteringDelay: .seconds(300)))
        h.fix(east: 0)
        h.advance(by: .seconds(10))
        h.setAccuracy(.full)
        h.advance(by: .seconds(190))
        h.fix(east: 0)
        #expect(h.transitions["county"] == [.determined(.inside)], "no unknown stamped in the past, no second determined")
        // An aged fix the regions refuse (older than the last) under reduced accuracy leaves the planned deadline,
        // and the engine's alarm, as they were.
        h.setAccuracy(.reduced)
        h.advance(by: .seconds(2))
        h.fix(east: 0, age: .seconds(5))
        h.advance(by: .seconds(1))
        #expect(h.transitions["county"] == [.determined(.inside)])
    }

    @Test("with full accuracy back, a fix that leaves a region in doubt starts its unknown timeout by the rule of the fix before: no becameUnknown stamped in the past")
    func aRegionInDoubtAfterFullAccuracyReturnsIsNotUnknownInThePast() {
        var h = MachineHarness(accuracy: .reduced)
        h.monitor("county", radius: 40_000)
        h.fix(east: 0)
        h.advance(by: .seconds(10))
        h.setAccuracy(.full)
        h.advance(by: .seconds(190))
        // 5 m inside the boundary: in doubt (a 5 m fix decides 30 m across).
        h.fix(east: 39_995)
        h.advance(by: .seconds(1))
        #expect(h.transitions["county"] == [.determined(.inside)], "no unknown at once")
        #expect(h.transitionInstants["county", default: []].allSatisfy { $0 == .zero })
    }

    @Test("a transient source error reaches monitors, which keep running")
    func transientError() {
        var h = MachineHarness()
        h.monitor("m")
        h.transientError()
        #expect(h.events["m"] == [.sourceError(SourceError(code: "test.transient", message: "scripted"))])
        h.fix(east: 0)
        #expect(h.transitions["m"] == [.determined(.inside)])
    }
}
