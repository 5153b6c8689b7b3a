import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

/// A timeout that falls due while the engine works through a long delivery or a long backlog of
/// commands is handed over there, not after the whole of it. Handlers advance the manual clock in the
/// middle of the engine's work, which makes the "meanwhile" deterministic.
@Suite("Timeouts that fall due during long work")
struct ExpiryDuringBacklogTests {
    let clock = ManualClock()
    let source = ScriptedLocationSource()

    /// The order in which handlers heard what, across requests.
    final class Journal: Sendable {
        private let entries = NIOLockedValueBox<[(RequestID, LocationStatus)]>([])
        func note(_ result: LocationResult) { entries.withLockedValue { $0.append((result.requestID, result.status)) } }
        var all: [(RequestID, LocationStatus)] { entries.withLockedValue { $0 } }
        /// Where `id` was heard, and how, in the journal.
        func position(of id: RequestID) -> (Int, LocationStatus)? {
            let all = self.all
            return all.firstIndex { $0.0 == id }.map { ($0, all[$0].1) }
        }
    }

    func makeEngine() -> LocationEngine<ManualClock> {
        let engine = LocationEngine(source: source, clock: clock, configuration: .init(linger: .seconds(60)), logger: quietLogger)
        Task { try await engine.run() }
        return engine
    }

    /// Makes a room-accuracy request that times out at 1 s, then a block-accuracy one whose handler —
    /// run when the 50 m fix emitted here completes it — moves the clock 2 s on and then calls
    /// `meanwhile`, then `more` block-accuracy requests. Returns where the journal heard the timed
    /// request, and how.
    func timedRequestDuringWork(
        _ engine: LocationEngine<ManualClock>, _ journal: Journal, more: Int = 0, meanwhile: @escaping @Sendable () -> Void = {}
    ) async -> (Int, LocationStatus)? {
        let timed = engine.location(accuracy: .room, timeout: .seconds(1), handler: journal.note)
        let clock = self.clock
        engine.location(accuracy: .block, timeout: nil) { result in
            journal.note(result)
            _ = clock.advance(by: .seconds(2))  // the work takes "two seconds" from here on
            meanwhile()
        }
        for _ in 0..<more { engine.location(accuracy: .block, timeout: nil, handler: journal.note) }
        await engine.sync()
        source.emit(fix(50))
        await engine.sync()
        return journal.position(of: timed)
    }

    @Test("a fix delivered to 5,000 one-shots: a timeout due meanwhile is handed over within the next 1,024 deliveries")
    func timeoutDuringLargeDelivery() async {
        let engine = makeEngine()
        let journal = Journal()
        let heard = await timedRequestDuringWork(engine, journal, more: 4_999)
        #expect(heard?.1 == .timedOut)
        #expect(heard.map { $0.0 } ?? .max <= 1_024, "the timeout waited for the whole delivery")
        #expect(journal.all.count == 5_001)
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsSucceeded == 5_000)
        #expect(statistics.oneShotsTimedOut == 1)
    }

    @Test("a backlog of 600 requests: a timeout due meanwhile is handed over after at most 256 of them")
    func timeoutDuringBacklog() async {
        let engine = makeEngine()
        let journal = Journal()
        // The fix's handler queues 600 requests that the cached fix answers at once: the engine works
        // through them as one backlog.
        let heard = await timedRequestDuringWork(engine, journal) {
            for _ in 0..<600 { engine.location(accuracy: .city, timeout: nil, handler: journal.note) }
        }
        #expect(heard?.1 == .timedOut)
        // Position 0 is the fix's delivery; the timeout comes before the 257th backlog request's answer.
        #expect(heard.map { $0.0 } ?? .max <= 257, "the timeout waited for the whole backlog")
        #expect(journal.all.count == 602)
    }

    @Test("a cancel further on in the backlog is honoured by a timeout pass that runs before it is reached")
    func cancelLaterInBacklog() async {
        // The backlog is queued by the source's `start` (not by a handler, whose cancels the engine
        // notes as they are issued): the cancel reaches the engine only as part of the batch.
        let source = StartHookSource()
        let engine = LocationEngine(source: source, clock: clock, configuration: .init(linger: .zero), logger: quietLogger)
        Task { try await engine.run() }
        let journal = Journal()
        let timed = IDSlot()
        // The first request's handler makes the timed one (so its ID is known before the engine
        // processes it); with no linger the source has stopped by then, and starting it again runs the hook.
        engine.location(accuracy: .block, timeout: nil) { result in
            journal.note(result)
            timed.set(engine.location(accuracy: .room, timeout: .seconds(1), handler: journal.note))
        }
        await engine.sync()
        let clock = self.clock
        source.onStart.withLockedValue {
            $0 = {
                _ = clock.advance(by: .seconds(2))
                for _ in 0..<600 { engine.location(accuracy: .city, timeout: nil, handler: journal.note) }
                if let id = timed.id { engine.cancel(id) }  // issued before the timeout is handed over, processed after it
            }
        }
        source.scripted.emit(fix(50))
        await engine.sync()

        #expect(journal.position(of: timed.id!) == nil, "a cancelled request hears nothing")
        #expect(journal.all.count == 601)
        #expect(source.scripted.commands.filter { if case .start = $0 { true } else { false } }.count == 2, "the source was started again")
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsCancelled == 1)
        #expect(statistics.oneShotsTimedOut == 0)
    }
}

/// A scripted source that runs a hook (once) when the engine starts it.
final class StartHookSource: LocationSource {
    let scripted = ScriptedLocationSource()
    let onStart = NIOLockedValueBox<(@Sendable () -> Void)?>(nil)
    var capabilities: SourceCapabilities { scripted.capabilities }

    func start(mode: PowerMode, events: SourceEventSink) {
        scripted.start(mode: mode, events: events)
        let hook = onStart.withLockedValue { hook in
            defer { hook = nil }
            return hook
        }
        hook?()
    }

    func setMode(_ mode: PowerMode) { scripted.setMode(mode) }
    func stop() { scripted.stop() }
}
