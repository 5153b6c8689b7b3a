import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

@testable import LocationEngine

/// Regions restored with the state an earlier monitor left them in (``GeofenceOptions/restoredState``).
@Suite("Geofence restored state")
struct RestoredStateTests {
    static let one = RequestID(rawValue: 1)

    /// A circle of 200 m around the harness's origin, restored as `state` since `since`.
    static func restoredCircle(
        _ h: EvaluatorHarness, _ state: GeofenceState, since: EngineInstant = .zero, dwelled: Bool = false, loitering: Duration? = nil
    ) throws {
        let region = try GeofenceRegion.circle(centre: h.origin, radius: 200)
        let options = GeofenceOptions(loiteringDelay: loitering, restoredState: GeofenceRestoredState(state, since: since, dwelled: dwelled))
        h.evaluator.add(one, region: region, options: options)
    }

    @Test("a region restored in the state the first fix finds reports nothing, inside or outside")
    func sameStateIsSilent() throws {
        for (state, east) in [(GeofenceState.inside, 0.0), (.outside, 1000)] {
            let h = try EvaluatorHarness()
            try Self.restoredCircle(h, state)
            #expect(h.evaluator.state(of: Self.one) == state)
            h.fix(east: east)
            #expect(h.take() == [])
            #expect(h.evaluator.state(of: Self.one) == state)
        }
    }

    @Test("a changed state is entered or exited, never determined, marked as against the restored state and without a crossing estimate")
    func changedStateIsMarked() throws {
        for (state, east, expected) in [(GeofenceState.outside, 0.0, GeofenceTransition.entered), (.inside, 1000, .exited)] {
            let h = try EvaluatorHarness()
            try Self.restoredCircle(h, state)
            h.fix(east: east)
            #expect(h.events.map(\.transition) == [expected])
            #expect(h.events.allSatisfy { $0.againstRestoredState && $0.estimatedCrossing == nil })
            _ = h.take()
            // Later changes are ordinary ones.
            h.fix(east: east == 0 ? 1000 : 0)
            #expect(h.events.count == 1 && h.events.allSatisfy { !$0.againstRestoredState })
        }
    }

    @Test("a region restored outside between two fixes whose straight path passes through it reports nothing: the path began before its monitor")
    func pathFromBeforeTheRestore() throws {
        let h = try EvaluatorHarness()
        // Another region keeps the evaluator taking fixes.
        h.evaluator.add(RequestID(rawValue: 2), region: try .circle(centre: offset(h.origin, north: 5_000, east: 0), radius: 100))
        h.fix(east: -1_000)
        _ = h.take(2)
        h.advance(by: .seconds(10))
        try Self.restoredCircle(h, .outside)
        h.fix(east: 1_000)
        #expect(h.take() == [])
        #expect(h.evaluator.state(of: Self.one) == .outside)
    }

    @Test("the fixes of an earlier monitoring session count for nothing: a region added after the last one ended is not timed out from them")
    func noFixesFromAnEarlierSession() throws {
        let h = try EvaluatorHarness()
        h.evaluator.add(RequestID(rawValue: 2), region: try .circle(centre: h.origin, radius: 200))
        h.fix(east: 0)
        h.evaluator.remove(RequestID(rawValue: 2))
        h.advance(by: .seconds(3600))
        try Self.restoredCircle(h, .inside, since: h.now)
        // 5 m inside: undecided, so its unknown timeout runs from this fix, not from the one an hour ago.
        h.advance(by: .seconds(1))
        h.fix(east: 195)
        #expect(h.take() == [])
        #expect(h.evaluator.state(of: Self.one) == .inside)
        h.advance(by: .seconds(119))
        #expect(h.take() == [])
        h.advance(by: .seconds(1))
        #expect(h.take() == [.becameUnknown])
    }

    @Test("a fix far away confirms a restored outside: a later entry is an ordinary one")
    func farFixConfirmsOutside() throws {
        let h = try EvaluatorHarness()
        try Self.restoredCircle(h, .outside)
        h.fix(east: 20_000)
        #expect(h.take() == [])
        h.fix(east: 0)
        #expect(h.events.map(\.transition) == [.entered] && h.events.allSatisfy { !$0.againstRestoredState })
    }

    @Test("an undecided first fix keeps the restored state and its mark for the fix that decides it")
    func undecidedKeepsTheMark() throws {
        let h = try EvaluatorHarness()
        try Self.restoredCircle(h, .inside)
        h.fix(east: 200)   // on the boundary: decides nothing
        #expect(h.take() == [] && h.evaluator.state(of: Self.one) == .inside)
        h.fix(east: 1000)
        #expect(h.events.map(\.transition) == [.exited] && h.events.allSatisfy(\.againstRestoredState))
    }

    @Test("a restored inside region dwells at its instant plus the delay, at once when that has passed, and not again when it had dwelled")
    func restoredDwell() throws {
        let h = try EvaluatorHarness()
        h.now = EngineInstant.zero + .seconds(100)
        try Self.restoredCircle(h, .inside, since: .zero + .seconds(90), loitering: .seconds(30))
        #expect(h.evaluator.nextDeadline == .zero + .seconds(120))
        h.advance(by: .seconds(20))
        #expect(h.events.map(\.transition) == [.dwelled] && h.events.first?.at == .zero + .seconds(120))

        let late = try EvaluatorHarness()
        late.now = EngineInstant.zero + .seconds(5)
        try Self.restoredCircle(late, .inside, since: EngineInstant(nanoseconds: -3_600_000_000_000), loitering: .seconds(30))
        late.advance(by: .zero)
        #expect(late.take() == [.dwelled])

        let done = try EvaluatorHarness()
        try Self.restoredCircle(done, .inside, since: .zero, dwelled: true, loitering: .seconds(30))
        #expect(done.evaluator.nextDeadline == nil)
    }

    @Test("a stay restored as beginning after the region is monitored (a wall clock set back) began then: its dwell is not put off")
    func restoredStayFromTheFuture() throws {
        let h = try EvaluatorHarness()
        h.now = EngineInstant.zero + .seconds(100)
        let future = GeofenceRestoredState(.inside, since: .zero + .seconds(86_400))
        let options = GeofenceOptions(loiteringDelay: .seconds(30), restoredState: future)
        h.evaluator.add(Self.one, region: try .circle(centre: h.origin, radius: 200), options: options, at: h.now)
        #expect(h.evaluator.nextDeadline == .zero + .seconds(130))
        h.advance(by: .seconds(30))
        #expect(h.events.map(\.transition) == [.dwelled] && h.events.first?.at == .zero + .seconds(130))
    }

    @Test("a region restored unknown starts as a new one: determined by the first confident fix")
    func restoredUnknownIsNew() throws {
        let h = try EvaluatorHarness()
        try Self.restoredCircle(h, .unknown)
        h.fix(east: 0)
        #expect(h.take() == [.determined(.inside)])
    }

    @Test("through the engine: restored fences report nothing for an unchanged state and exited for a changed one")
    func throughTheEngine() async throws {
        let clock = ManualClock()
        let source = ScriptedLocationSource()
        let engine = LocationEngine(source: source, clock: clock, configuration: .init(linger: .zero), logger: quietLogger)
        Task { try await engine.run() }
        let centre = GeoPoint(latitude: 48.0, longitude: 11.0)
        let received = NIOLockedValueBox<[GeofenceEvent]>([])
        let handler: @Sendable (RequestID, RegionEvent) -> Void = { _, event in
            if case .transition(let change) = event { received.withLockedValue { $0.append(change) } }
        }
        let since = engine.currentInstant() - .seconds(600)
        let here = engine.monitor(
            try .circle(centre: centre, radius: 200), options: GeofenceOptions(restoredState: GeofenceRestoredState(.inside, since: since)),
            handler: handler)
        let away = engine.monitor(
            try .circle(centre: GeoPoint(latitude: 48.1, longitude: 11.0), radius: 200),
            options: GeofenceOptions(restoredState: GeofenceRestoredState(.inside, since: since)), handler: handler)
        await engine.sync()
        #expect(await engine.regionState(here) == .inside)
        #expect(await engine.regionState(away) == .inside)
        source.emit(Location(latitude: 48.0, longitude: 11.0, horizontalAccuracy: 5))
        await engine.sync()
        let events = received.withLockedValue { $0 }
        #expect(events.map(\.id) == [away] && events.map(\.transition) == [.exited] && events.allSatisfy(\.againstRestoredState))
        await engine.shutdown()
    }

    @Test("through the engine: a restored fence that no fix ever confirms becomes unknown after unknownAfter from its start")
    func restoredWithoutAnyFix() async throws {
        let clock = ManualClock()
        let source = ScriptedLocationSource()
        let engine = LocationEngine(source: source, clock: clock, configuration: .init(linger: .zero), logger: quietLogger)
        Task { try await engine.run() }
        let received = NIOLockedValueBox<[GeofenceTransition]>([])
        let fence = engine.monitor(
            try .circle(centre: GeoPoint(latitude: 48.0, longitude: 11.0), radius: 200),
            options: GeofenceOptions(restoredState: GeofenceRestoredState(.inside, since: engine.currentInstant() - .seconds(600)))
        ) { _, event in
            if case .transition(let change) = event { received.withLockedValue { $0.append(change.transition) } }
        }
        await engine.sync()
        // The source never gives a valid fix.
        source.emit(Location(latitude: 48.0, longitude: 11.0, horizontalAccuracy: -1))
        await engine.sync(advancingBy: .seconds(119))
        #expect(await engine.regionState(fence) == .inside)
        await engine.sync(advancingBy: .seconds(1))
        #expect(received.withLockedValue { $0 } == [.becameUnknown])
        #expect(await engine.regionState(fence) == .unknown)
        await engine.shutdown()
    }
}
