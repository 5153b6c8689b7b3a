import Foundation
import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

/// Every kind of request at once — one-shots (with and without waiting for authorization, with purpose keys),
/// subscriptions of every kind, region monitors — over two sources (a GNSS receiver that describes its power and
/// first fixes, so the engine powers it down, lets the monitors sleep and judges its modes, and a coarse one that
/// locates by network), while the user changes the authorization picture, answers prompts, ends sessions and
/// presses the location button, the sources fail now and then, and handlers cancel, force-complete and submit
/// from inside. Each run is one seed's random walk on the virtual clock; the checks are the engine's promises
/// that hold whatever the order:
///
/// - every request ends exactly once, unless it was cancelled (then at most once), and hears nothing after
///   its end; none ends force-completed unless it was force-completed; the one-shots' and subscriptions'
///   endings and updates agree with what they asked for (the test kit's ``RequestLedger``: a success meets its
///   accuracy, a timeout comes no earlier than its deadline, an update passes its filters);
/// - a request cancelled from a handler hears nothing after that call (it takes effect before any further
///   delivery), and one cancelled from outside hears nothing once the engine has processed the cancel — but
///   for the ending of a command that can decide how requests end (an authorization change, the end of a
///   session, a location-button press, shutdown) made before the cancel and not processed yet, which the
///   cancel does not overtake (at most that one ending, then nothing);
/// - nothing reaches anyone while access is lost, nothing finer than the coarsening grid while accuracy is
///   reduced (and no course), no request ends unauthorized while access is granted (the picture as the
///   application hears it, `onAuthorizationChange`, which runs before the deliveries a change decides);
/// - shutdown ends every request left, and one made after it ends at once;
/// - the same requests made through the async API (``ChaosAwaitedRequests``) end for their readers: each handle
///   with its own result, or cancelled only if it or its task was, and each sequence's loop;
/// - the engine's counters say exactly what the handlers and the handles heard, and each source was commanded in order (never
///   started while running, never given a mode while down) and is down after shutdown.
@Suite("Chaos")
struct ChaosTests {
    @Test("every kind of request, under authorization changes, prompts, source failures and re-entrant handlers, ends exactly once",
        .timeLimit(.minutes(2)), arguments: [UInt64(1), 2, 3, 4, 5, 0xC0FFEE])
    func everyRequestEndsOnce(seed: UInt64) async {
        let run = ChaosRun(seed: seed)
        await run.play(steps: 2_000)
        let violations = run.journal.violations
        #expect(violations.isEmpty, "seed \(seed), first violations: \(violations.prefix(5))")
        let tally = run.journal.tally
        // The mix reached every kind of ending it is meant to exercise (the run's walk was not degenerate).
        #expect(tally.oneShotEndings > 200 && tally.subscriptionEnds > 50 && tally.monitorEnds > 50 && tally.transitions > 0,
            "seed \(seed): \(tally)")
        #expect(tally.unauthorizedEndings > 0 && tally.shutDownEndings > 0 && run.journal.coarseChecked > 0, "seed \(seed): \(tally)")
        // (More sequences ended abnormally than the three made after shutdown.)
        let async = tally.async
        #expect(async.results > 20 && async.cancelled > 0 && async.endedAbnormally > 3 && async.finished > 0, "seed \(seed): \(tally)")
    }
}

/// One seed's run: the engine, its sources and user, and what the handlers heard.
final class ChaosRun: Sendable {
    let clock = ManualClock()
    let sources = [
        ScriptedLocationSource(
            capabilities: SourceCapabilities(
                providesCourse: true, powerProfile: .mt3339,
                firstFixByMode: [.best: .seconds(2), .high: .seconds(2), .medium: .seconds(5), .low: .seconds(20), .lowest: .seconds(60)])),
        ScriptedLocationSource(capabilities: SourceCapabilities(providesCourse: false, reach: 1_000, reachByMode: [.medium: 60, .high: 60, .best: 60])),
    ]
    let engine: LocationEngine<ManualClock>
    let journal: ChaosJournal
    /// The requests made through the async API, and their readers.
    let awaited = ChaosAwaitedRequests()
    /// The walk's randomness, shared by the test and the handlers (which run on the engine's executor).
    let random: NIOLockedValueBox<SplitMix64>
    /// The user, who answers the engine's prompts (each answer a command that can decide how requests end).
    let user: SimulatedAuthorizationProvider
    /// Where the scripted device is, near the fences.
    static let home = GeoPoint(latitude: 48.137, longitude: 11.575)

    init(seed: UInt64) {
        random = NIOLockedValueBox(SplitMix64(seed: seed))
        journal = ChaosJournal(clock: clock)
        user = SimulatedAuthorizationProvider(
            .init(
                initial: .notDetermined,
                authorizationAnswers: [
                    .init(.allowOnce(precise: true), after: .milliseconds(300)), .init(.allowWhileUsing(precise: false)),
                    .init(.deny, after: .seconds(1)), .init(.dismiss), .init(.allowAlways(precise: true), after: .milliseconds(200)),
                ],
                fullAccuracyAnswers: [.init(true, after: .milliseconds(500)), .init(false), .init(true)],
                locationButtonAnswers: [.init(true, after: .milliseconds(100)), .init(false)],
                changes: [.init(.authorizedAlways, after: .seconds(40)), .init(.denied, after: .seconds(90))]))
        var configuration = LocationEngineConfiguration(
            linger: .seconds(2), authorizationProvider: user,
            usage: UsageDeclarations(whenInUse: "chaos", always: "chaos", temporaryFullAccuracyPurposes: ["navigation": "chaos"]))
        configuration.fallbackAfter = .seconds(5)
        configuration.onAuthorizationChange = { [journal] state in journal.authorizationChanged(state) }
        engine = LocationEngine(sources: sources, clock: clock, configuration: configuration, logger: quietLogger)
    }

    func roll(_ bound: Int) -> Int { random.withLockedValue { $0.int(bound) } }
    func oneIn(_ n: Int) -> Bool { roll(n) == 0 }

    /// Plays `steps` steps of the walk, then shuts the engine down and makes a few requests after it. The engine is
    /// driven by `sync()` alone (no `run()`), so handlers run only while the test awaits it. The readers of the async
    /// requests run beside the walk, on the pool: a cancel from a reader's task, or a reader leaving its loop, reaches
    /// the engine when that task runs, which changes what the engine does next and so the rolls of later handlers. A
    /// seed's walk may so differ from one run to the next, and a failing seed may not replay; what is checked holds
    /// whatever the order, and a violation names the requests and what they heard.
    func play(steps: Int) async {
        for _ in 0..<steps {
            for _ in 0..<(1 + roll(6)) { act() }
            clock.advance(by: .milliseconds(Int64(roll(3_000))))
            journal.syncStarted(prompts: user.prompts.count)
            await engine.sync()
            journal.syncEnded()
        }
        journal.syncStarted(prompts: user.prompts.count)
        journal.barrierMade()
        await engine.shutdown()
        // Requests after shutdown end at once, on this thread.
        for _ in 0..<20 { act(afterShutdown: true) }
        for _ in 0..<3 {
            submitHandle()
            submitStream()
        }
        let (counts, violations) = await awaited.finish()
        journal.finish(statistics: await engine.statistics(), awaited: counts, readersFound: violations)
        for (index, source) in sources.enumerated() { journal.check(source.commands, running: source.isRunning, of: "source \(index)") }
    }

    /// One action of the test (not of a handler).
    func act(afterShutdown: Bool = false) {
        switch roll(afterShutdown ? 40 : 100) {
        case 0..<25: submitOneShot()
        case 25..<33: submitSubscription()
        case 33..<40: submitMonitor()
        case 40..<52: withdrawSomething(from: nil)
        case 52..<57: changeAuthorization()
        case 57..<59:
            journal.barrierMade()
            engine.endSession()
        case 59..<60:
            journal.barrierMade()
            engine.locationButtonPressed()
        case 60..<63: submitHandle()
        case 63..<65: submitStream()
        case 65..<67: awaited.withdrawOne(from: engine, roll)
        default: feedTheSources()
        }
    }

    func submitOneShot() {
        let levels: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room, .custom(metres: 30, maximumAge: .seconds(5))]
        let accuracy = levels[roll(levels.count)]
        let timeout: Duration? = oneIn(6) ? nil : .milliseconds(Int64(200 + roll(20_000)))
        let purposeKey: String? = oneIn(5) ? (oneIn(4) ? "undeclared" : "navigation") : nil
        let id = engine.location(accuracy: accuracy, timeout: timeout, delayUntilAuthorized: oneIn(3), purposeKey: purposeKey) {
            [self] result in
            journal.heard(result)
            if oneIn(6) { reactInHandler(to: result.requestID) }
        }
        journal.made(id, .oneShot, asking: .oneShot(accuracy: accuracy, timeout: timeout))
    }

    /// A one-shot made as a handle, awaited by a task of its own.
    func submitHandle() {
        let levels: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room]
        let timeout: Duration? = oneIn(6) ? nil : .milliseconds(Int64(200 + roll(20_000)))
        awaited.await(engine.locationRequest(accuracy: levels[roll(levels.count)], timeout: timeout, delayUntilAuthorized: oneIn(3)))
        // Now and then withdrawn at once, before the engine has seen it (most handles end within their first sync).
        if oneIn(4) { awaited.withdrawOne(from: engine, roll) }
    }

    /// A subscription read as a sequence by a task of its own, which may leave its loop early.
    func submitStream() {
        let kinds: [SubscriptionKind] = [.standard, .passive, .significantChange, .heading]
        let options = SubscriptionOptions(
            kind: kinds[roll(kinds.count)], accuracy: oneIn(2) ? nil : .house, maximumUpdates: oneIn(3) ? 1 + roll(4) : nil,
            duration: oneIn(3) ? .seconds(Int64(1 + roll(30))) : nil)
        awaited.read(engine.updates(options, bufferingNewest: 1 + roll(8)), leavingAfter: oneIn(3) ? 1 + roll(2) : nil)
    }

    func submitSubscription() {
        let kinds: [SubscriptionKind] = [.standard, .standard, .passive, .significantChange, .heading]
        let options = SubscriptionOptions(
            kind: kinds[roll(kinds.count)], accuracy: oneIn(2) ? nil : [.block, .house, .room][roll(3)],
            distanceFilter: oneIn(3) ? 20 : 0, minimumInterval: oneIn(3) ? .seconds(2) : .zero,
            maximumUpdates: oneIn(3) ? 1 + roll(4) : nil, duration: oneIn(3) ? .seconds(Int64(1 + roll(30))) : nil,
            purposeKey: oneIn(8) ? "navigation" : nil)
        let id = engine.updates(options) { [self] id, event in
            journal.heard(id, event)
            if oneIn(8) { reactInHandler(to: id) }
        }
        journal.made(id, .subscription, asking: .subscription(options))
    }

    func submitMonitor() {
        let bearing = Double(roll(360)) * .pi / 180
        let distance = Double(roll(400))
        let centre = GeoPoint(
            latitude: Self.home.latitude + distance * cos(bearing) / 111_320,
            longitude: Self.home.longitude + distance * sin(bearing) / (111_320 * cos(Self.home.latitude * .pi / 180)))
        let region = try! GeofenceRegion.circle(centre: centre, radius: Double(50 + roll(300)))
        let options = GeofenceOptions(
            loiteringDelay: oneIn(3) ? .seconds(Int64(1 + roll(20))) : nil, responsiveness: oneIn(3) ? .seconds(Int64(roll(30))) : .zero)
        let id = engine.monitor(region, options: options) { [self] id, event in
            journal.heard(id, event)
            if oneIn(8) { reactInHandler(to: id) }
        }
        journal.made(id, .monitor)
    }

    /// What a handler of `id` does now and then: cancels itself or another, force-completes another, or makes a
    /// new request.
    func reactInHandler(to id: RequestID) {
        switch roll(4) {
        case 0:
            journal.cancelledInHandler(id, prompts: user.prompts.count)
            engine.cancel(id)
        case 1: withdrawSomething(from: id)
        case 2: submitOneShot()
        default: submitMonitor()
        }
    }

    /// Cancels or force-completes a request made earlier; from the handler of `handlerOf` when given.
    func withdrawSomething(from handlerOf: RequestID?) {
        guard let victim = journal.someRequest(roll) else { return }
        if oneIn(2) {
            if handlerOf != nil { journal.cancelledInHandler(victim, prompts: user.prompts.count) } else { journal.cancelled(victim) }
            engine.cancel(victim)
        } else {
            journal.forceCompleted(victim)
            engine.forceComplete(victim)
        }
    }

    func changeAuthorization() {
        let pictures: [AuthorizationState] = [
            .authorizedAlways, .authorizedAlways, .authorizedWhenInUse(accuracy: .reduced), .authorizedWhenInUse(oneTime: true),
            .denied, .notDetermined, .restricted, AuthorizationState(status: .authorizedAlways, servicesEnabled: false),
        ]
        journal.barrierMade()
        engine.updateAuthorization(pictures[roll(pictures.count)])
    }

    func feedTheSources() {
        let index = roll(sources.count)
        let source = sources[index]
        switch roll(40) {
        case 0: _ = source.emitTransientError(SourceError(code: "chaos.transient", message: "scripted"))
        case 1: _ = source.emitFatalError(SourceError(code: "chaos.fatal", message: "scripted"))
        default:
            let metres = Double(roll(500))
            let bearing = Double(roll(360)) * .pi / 180
            let fix = Location(
                latitude: Self.home.latitude + metres * cos(bearing) / 111_320,
                longitude: Self.home.longitude + metres * sin(bearing) / (111_320 * cos(Self.home.latitude * .pi / 180)),
                horizontalAccuracy: index == 0 ? [3.0, 5, 12, 40][roll(4)] : [60.0, 150, 900, 2_500][roll(4)], speed: oneIn(2) ? 0 : Double(roll(15)),
                course: oneIn(2) ? nil : Double(roll(360)))
            _ = source.emit(fix, age: oneIn(8) ? .seconds(Int64(roll(60))) : .zero)
        }
    }
}

/// What the handlers heard, request by request, and the promises it breaks. The one-shots and subscriptions go
/// through the test kit's ``RequestLedger`` too, for what they asked for; this adds what it cannot see: the
/// monitors, a cancel's silence, fixes while access is lost, and the sources' commands.
final class ChaosJournal: Sendable {
    enum Kind: Sendable { case oneShot, subscription, monitor }

    /// How a request ended, as far as the checks here care.
    enum Ending: Sendable, Hashable {
        case unauthorized, accuracyReduced, shutDown, forceCompleted, other

        /// Whether a command that can decide how requests end decides this ending.
        var isDecidedByBarrier: Bool { self == .unauthorized || self == .accuracyReduced || self == .shutDown }

        init(_ status: LocationStatus) {
            switch status {
            case .unauthorized: self = .unauthorized
            case .accuracyReduced: self = .accuracyReduced
            case .forceCompleted: self = .forceCompleted
            case .shutDown: self = .shutDown
            default: self = .other
            }
        }

        init(_ end: SubscriptionEnd) {
            switch end {
            case .unauthorized: self = .unauthorized
            case .accuracyReduced: self = .accuracyReduced
            case .forceCompleted: self = .forceCompleted
            case .shutDown: self = .shutDown
            default: self = .other
            }
        }
    }

    struct Record {
        var kind: Kind?
        var endings = 0
        /// Why nothing may follow: cancelled from a handler, or from the test and processed by a sync since.
        var silenced: String?
        /// Cancelled from a handler while a command that can decide how requests end may not have been processed:
        /// until the sync ends, that command's ending may still come (the cancel waits behind it).
        var heldBehindBarrier = false
        var cancelIssued = false
        var forceCompleteIssued = false
    }

    struct Tally: Sendable, CustomStringConvertible {
        var oneShotEndings = 0, subscriptionEnds = 0, monitorEnds = 0, transitions = 0, unauthorizedEndings = 0, shutDownEndings = 0
        /// How the requests made through the async API ended (counted once they all have).
        var async = ChaosAwaitedRequests.Counts()
        var description: String {
            "one-shot endings \(oneShotEndings), subscription ends \(subscriptionEnds), monitor ends \(monitorEnds), "
                + "transitions \(transitions), unauthorized \(unauthorizedEndings), shut down \(shutDownEndings), async \(async)"
        }
    }

    fileprivate struct State {
        var ledger = RequestLedger(expectations: ExpectationTable(), authorization: .notDetermined)
        /// Whether the test made a command that can decide how requests end since the last sync began.
        var barrierMade = false
        /// The user's prompts when the sync began: each answer since is such a command.
        var promptsAtSync = 0
        /// The authorization picture as the application last heard it.
        var authorization = AuthorizationState.notDetermined
        var records: [RequestID: Record] = [:]
        var order: [RequestID] = []
        /// Cancelled since the last sync began, from the test or from a handler.
        var cancelledSinceSync: [RequestID] = []
        var violations: [String] = []
        var tally = Tally()
    }

    private let state = NIOLockedValueBox(State())
    private let clock: ManualClock

    init(clock: ManualClock) { self.clock = clock }

    /// The clock's time, nanoseconds, as the ledger counts it.
    private var now: Int64 {
        let (seconds, attoseconds) = clock.now.offset.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// What went wrong: the journal's own findings, then the ledger's.
    var violations: [String] { state.withLockedValue { $0.violations + $0.ledger.violations } }
    var tally: Tally { state.withLockedValue { $0.tally } }
    /// Fixes the ledger checked for coarseness under reduced accuracy (the check ran).
    var coarseChecked: Int { state.withLockedValue { $0.ledger.coarseDeliveriesChecked } }

    /// The test made `id` (a one-shot or a subscription `asking` for what the ledger checks).
    func made(_ id: RequestID, _ kind: Kind, asking expected: ExpectedRequest? = nil) {
        let time = now
        state.withLockedValue { state in
            if state.records[id]?.kind != nil { state.violations.append("\(id) handed out twice") }
            state.records[id, default: Record()].kind = kind
            state.order.append(id)
            if let expected {
                state.ledger.expectations.record(id, expected)
                state.ledger.submitted(id, at: time)
            }
        }
    }

    /// Any request made so far, by `roll`.
    func someRequest(_ roll: (Int) -> Int) -> RequestID? {
        // The lock is not held while rolling: the roll takes the randomness's own lock.
        let count = state.withLockedValue { $0.order.count }
        guard count > 0 else { return nil }
        let index = roll(count)
        return state.withLockedValue { $0.order[index] }
    }

    /// The application hears of a change of the authorization picture.
    func authorizationChanged(_ picture: AuthorizationState) {
        state.withLockedValue {
            $0.authorization = picture
            $0.ledger.authorizationChanged(picture)
        }
    }

    /// A command that can decide how requests end was made: until the next sync's end, a cancel from a handler may
    /// be held behind it.
    func barrierMade() { state.withLockedValue { $0.barrierMade = true } }

    /// A sync begins; the user has been prompted `prompts` times so far.
    func syncStarted(prompts: Int) { state.withLockedValue { $0.promptsAtSync = prompts } }

    /// A handler cancels `id`; the user has been prompted `prompts` times so far.
    func cancelledInHandler(_ id: RequestID, prompts: Int) {
        let time = now
        state.withLockedValue { state in
            let held = state.barrierMade || prompts > state.promptsAtSync
            if state.records[id, default: Record()].silenced == nil {
                state.records[id, default: Record()].silenced = "cancelled from a handler" + (held ? " behind a command it waits for" : "")
                state.records[id, default: Record()].heldBehindBarrier = held
            }
            state.cancel(id, at: time)
        }
    }

    /// The test cancels `id`: it takes effect by the end of the next sync.
    func cancelled(_ id: RequestID) {
        let time = now
        state.withLockedValue { $0.cancel(id, at: time) }
    }

    func forceCompleted(_ id: RequestID) {
        let time = now
        state.withLockedValue {
            $0.records[id, default: Record()].forceCompleteIssued = true
            $0.ledger.issued(.forceCompleteIssued, for: id, at: time)
        }
    }

    /// The engine has processed everything issued before the sync: every cancel made since the last has taken
    /// effect, behind whatever it waited for.
    func syncEnded() {
        state.withLockedValue { state in
            state.barrierMade = false
            for id in state.cancelledSinceSync {
                state.records[id]!.silenced = state.records[id]!.silenced ?? "cancelled from the test, processed by the sync before"
                state.records[id]!.heldBehindBarrier = false
            }
            state.cancelledSinceSync.removeAll()
        }
    }

    /// A one-shot's result.
    func heard(_ result: LocationResult) {
        let time = now
        state.withLockedValue { state in
            state.ledger.oneShotEnded(result, at: time)
            state.heard(result.requestID, .oneShot, ending: Ending(result.status), location: result.location)
        }
    }

    /// A subscription's event.
    func heard(_ id: RequestID, _ event: SubscriptionEvent) {
        let time = now
        state.withLockedValue { state in
            state.ledger.subscriptionEvent(id, event, at: time)
            switch event {
            case .ended(let end): state.heard(id, .subscription, ending: Ending(end))
            case .location(let update): state.heard(id, .subscription, ending: nil, location: update.location)
            case .heading(let update): state.heard(id, .subscription, ending: nil, location: update.location)
            case .sourceError: state.heard(id, .subscription, ending: nil)
            }
        }
    }

    /// A monitor's event.
    func heard(_ id: RequestID, _ event: RegionEvent) {
        state.withLockedValue { state in
            switch event {
            case .ended(let end):
                if Ending(end) == .forceCompleted && state.records[id]?.forceCompleteIssued != true {
                    state.violations.append("\(id) (monitor) ended force-completed though nobody asked")
                }
                state.heard(id, .monitor, ending: Ending(end))
            case .transition:
                state.tally.transitions += 1
                state.heard(id, .monitor, ending: nil)
            case .sourceError: state.heard(id, .monitor, ending: nil)
            }
        }
    }

    /// The commands a source was given, in order, and whether it runs after shutdown.
    func check(_ commands: [ScriptedLocationSource.Command], running: Bool, of source: String) {
        state.withLockedValue { state in
            var isRunning = false
            for (index, command) in commands.enumerated() {
                switch command {
                case .start:
                    if isRunning { state.violations.append("\(source) started while running (command \(index))") }
                    isRunning = true
                case .setMode:
                    if !isRunning { state.violations.append("\(source) given a mode while down (command \(index))") }
                case .stop:
                    isRunning = false
                }
            }
            if running || isRunning { state.violations.append("\(source) runs after shutdown") }
        }
    }

    /// After shutdown: every request ended, unless it was cancelled; the engine counted the one-shots it ended and
    /// the ones cancelled, the handles' among them (`awaited`). What ``ChaosAwaitedRequests/finish()`` found among
    /// the readers (`readersFound`) is added to the violations. (Not the ledger's comparison with every counter: the
    /// engine counts monitors among its subscriptions, which the ledger does not see.)
    func finish(statistics: SchedulerStatistics, awaited: ChaosAwaitedRequests.Counts, readersFound: [String]) {
        state.withLockedValue { state in
            state.violations += readersFound
            state.tally.async = awaited
            _ = state.ledger.finish(engineStatistics: nil)
            var oneShotsUnended = awaited.cancelled
            for id in state.order {
                let record = state.records[id]!
                if record.endings == 0 {
                    if !record.cancelIssued { state.violations.append("\(id) (\(record.kind!)) never ended and was never cancelled") }
                    if record.kind == .oneShot { oneShotsUnended += 1 }
                }
            }
            let counted = statistics.oneShotsSucceeded + statistics.oneShotsTimedOut + statistics.oneShotsForceCompleted + statistics.oneShotsFailed
            // Requests made after shutdown end on the caller's thread, counted as every request is.
            if counted != state.tally.oneShotEndings + awaited.results {
                state.violations.append(
                    "the engine counted \(counted) one-shot endings, the handlers heard \(state.tally.oneShotEndings) and the handles \(awaited.results)")
            }
            if statistics.oneShotsCancelled != oneShotsUnended {
                state.violations.append("the engine counted \(statistics.oneShotsCancelled) one-shots cancelled, \(oneShotsUnended) never ended")
            }
        }
    }
}

extension ChaosJournal.State {
    /// `id` is cancelled at `time`.
    fileprivate mutating func cancel(_ id: RequestID, at time: Int64) {
        records[id, default: ChaosJournal.Record()].cancelIssued = true
        cancelledSinceSync.append(id)
        ledger.issued(.cancelIssued, for: id, at: time)
    }

    /// What every request is checked for here, whatever its kind: it hears nothing after its end or after its
    /// cancel took effect and no fix while access is lost; a monitor ends unauthorized only when access is.
    fileprivate mutating func heard(_ id: RequestID, _ kind: ChaosJournal.Kind, ending: ChaosJournal.Ending?, location: Location? = nil) {
        var record = records[id, default: ChaosJournal.Record()]
        if let location, !authorization.isAuthorized {
            violations.append("\(id) (\(kind)) heard a fix while access was lost (\(authorization)): \(location)")
        }
        // (The ledger checks the one-shots and subscriptions for it.)
        if kind == .monitor && ending == .unauthorized && authorization.isAuthorized {
            violations.append("\(id) (\(kind)) ended unauthorized while access was granted (\(authorization))")
        }
        if let known = record.kind, known != kind { violations.append("\(id), a \(known), heard as a \(kind)") }
        if record.endings > 0 {
            violations.append("\(id) (\(kind)) heard \(ending.map { "ending \($0)" } ?? "an event") after its end")
        } else if let silenced = record.silenced, !(record.heldBehindBarrier && ending?.isDecidedByBarrier == true) {
            violations.append("\(id) (\(kind)) heard \(ending.map { "ending \($0)" } ?? "an event") after it was \(silenced)")
        }
        if let ending {
            record.endings += 1
            switch kind {
            case .oneShot: tally.oneShotEndings += 1
            case .subscription: tally.subscriptionEnds += 1
            case .monitor: tally.monitorEnds += 1
            }
            if ending == .unauthorized { tally.unauthorizedEndings += 1 }
            if ending == .shutDown { tally.shutDownEndings += 1 }
        }
        records[id] = record
    }
}
