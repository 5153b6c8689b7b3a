import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

@Suite("LocationEngine actor: region monitors")
struct RegionEngineTests {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let centre = GeoPoint(latitude: 48.0, longitude: 11.0)

    func fix(east: Double) -> Location {
        let longitude = 11.0 + east / (6_371_008.8 * Double.pi / 180 * 0.669_130_606_4)  // cos 48°
        return Location(latitude: 48.0, longitude: longitude, horizontalAccuracy: 5)
    }

    @Test("callback and sequence: the same transitions, on the virtual clock; cancel and shutdown end them")
    func callbackAndSequence() async throws {
        let engine = LocationEngine(source: source, clock: clock, configuration: .init(linger: .zero), logger: quietLogger)
        Task { try await engine.run() }
        let region = try GeofenceRegion.circle(centre: centre, radius: 200)
        let received = NIOLockedValueBox<[RegionEvent]>([])
        let id = engine.monitor(region, options: GeofenceOptions(loiteringDelay: .seconds(10))) { _, event in
            received.withLockedValue { $0.append(event) }
        }
        let updates = engine.monitor(region)
        await engine.sync()
        #expect(source.commands == [.start(.best)])
        source.emit(fix(east: 1000))
        await engine.sync()
        source.emit(fix(east: 0))
        await engine.sync()
        #expect(await engine.regionState(id) == .inside)
        clock.advance(by: .seconds(10))
        await engine.sync()
        let transitions = received.withLockedValue { $0 }.compactMap { event -> GeofenceTransition? in
            if case .transition(let transition) = event { return transition.transition }
            return nil
        }
        #expect(transitions == [.determined(.outside), .entered, .dwelled])
        engine.cancel(id)
        await engine.sync()
        #expect(received.withLockedValue { $0 }.count == 3, "a cancelled callback hears nothing")
        source.emit(fix(east: 1000))
        await engine.sync()
        await engine.shutdown()
        var sequence: [GeofenceTransition] = []
        do {
            for try await event in updates { sequence.append(event.transition) }
            Issue.record("a monitor ended by shutdown finishes its sequence with an error")
        } catch {
            #expect((error as? SubscriptionEndedError)?.reason == .shutDown)
        }
        #expect(sequence == [.determined(.outside), .entered, .exited])
    }

    /// One fix decides 1,100 monitors; the engine reads the clock every 1,024 handlers, and it has passed their
    /// dwells by then (a slow first handler). Each monitor still hears its region become inside before it hears
    /// the dwell: the dwells wait for the delivery's end.
    @Test("a dwell that falls due during a long delivery comes after the transition it follows, for every monitor")
    func dwellsFallingDueMidDeliveryComeAfterTheirEntry() async throws {
        let engine = LocationEngine(source: source, clock: clock, configuration: .init(linger: .zero), logger: quietLogger)
        Task { try await engine.run() }
        let region = try GeofenceRegion.circle(centre: centre, radius: 200)
        let count = 1100
        let heard = NIOLockedValueBox<[RequestID: [GeofenceTransition]]>([:])
        let first = NIOLockedValueBox(true)
        for _ in 0..<count {
            engine.monitor(region, options: GeofenceOptions(loiteringDelay: .seconds(1))) { [clock] id, event in
                guard case .transition(let transition) = event else { return }
                let isFirst = first.withLockedValue { value in
                    defer { value = false }
                    return value
                }
                if isFirst { clock.advance(by: .seconds(2)) }
                heard.withLockedValue { $0[id, default: []].append(transition.transition) }
            }
        }
        await engine.sync()
        source.emit(fix(east: 0))
        await engine.sync()
        await engine.sync()
        let logs = heard.withLockedValue { $0 }
        #expect(logs.count == count)
        let outOfOrder = logs.filter { $0.value != [.determined(.inside), .dwelled] }
        #expect(outOfOrder.count == 0, "\(outOfOrder.count) monitors heard \(outOfOrder.first?.value ?? [])")
        await engine.shutdown()
    }

    @Test("far from the fence the engine stops the receiver at the fix and starts it when the fence could first be decided, less a restart")
    func sleepsAndWakes() async throws {
        let profile = ReceiverPowerProfile.mt3339
        let source = ScriptedLocationSource(capabilities: SourceCapabilities(providesCourse: true, powerProfile: profile))
        let engine = LocationEngine(source: source, clock: clock, configuration: LocationEngineConfiguration(), logger: quietLogger)
        Task { try await engine.run() }
        let received = NIOLockedValueBox<[GeofenceEvent]>([])
        _ = engine.monitor(try GeofenceRegion.circle(centre: centre, radius: 200)) { _, event in
            if case .transition(let change) = event { received.withLockedValue { $0.append(change) } }
        }
        await engine.sync()
        #expect(source.commands == [.start(.best)])
        let far = fix(east: 5000)
        source.emit(far)
        await engine.sync()
        // The gap's end is known: the receiver stops at once, not a break-even later.
        #expect(source.commands == [.start(.best), .stop])
        // The test's own reckoning: 30 m/s to the boundary and on for the 20 m margin (the truth, within 10 m of
        // the fix, must get 30 m across for a 5 m fix to decide), less the receiver's restart from off after that long.
        let slack = centre.distance(to: GeoPoint(far)) - 200 + 20
        let decidable = Duration.nanoseconds(Int64((slack / 30 * 1e9).rounded(.down)))
        let wake = decidable - profile.restartDelay(after: decidable, in: .off)
        clock.advance(by: wake - .milliseconds(1))
        await engine.sync()
        #expect(source.commands == [.start(.best), .stop])
        clock.advance(by: .milliseconds(1))
        await engine.sync()
        #expect(source.commands == [.start(.best), .stop, .start(.best)])
        // Awake again, the fixes decide as before: in through the boundary (in doubt 15 m out, so the receiver stays on).
        #expect(source.emit(fix(east: 215)))
        await engine.sync()
        #expect(source.emit(fix(east: 150)))
        await engine.sync()
        #expect(received.withLockedValue { $0.map(\.transition) } == [.determined(.outside), .entered])
        #expect(received.withLockedValue { $0.last?.estimatedCrossing } != nil)
        await engine.shutdown()
    }
}
