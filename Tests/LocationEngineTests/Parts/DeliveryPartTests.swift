@testable import LocationEngine
import Testing

/// Each event returns what it decided, counted as decided; a withdrawal made mid-delivery overtakes an
/// ending the owner has not reached yet — the first withdrawal made being the one that takes effect —
/// and what it kept is forgotten at the next event between events.
@Suite("Delivery part: effects and overtaking")
struct DeliveryPartTests {
    typealias Machine = SchedulerStateMachine<String, String, String>

    static func id(_ n: UInt64) -> RequestID { RequestID(rawValue: n) }
    static let now = EngineInstant.zero
    static let fix = Location(latitude: 48, longitude: 11, horizontalAccuracy: 50)

    /// A machine with one-shots `tags` (IDs 1, 2, …) at block accuracy, authorized.
    static func machine(oneShots tags: [String], timeout: Duration? = nil) -> Machine {
        var configuration = Machine.Configuration(authorization: AuthorizationState(status: .authorizedWhenInUse))
        configuration.linger = .zero
        var machine = Machine(configuration: configuration)
        for (index, tag) in tags.enumerated() {
            _ = machine.submitOneShot(
                id(UInt64(index + 1)), accuracy: .block, timeout: timeout, delayUntilAuthorized: false, purposeKey: nil, madeAt: nil, handler: tag,
                now: now)
        }
        return machine
    }

    /// The recipients of the one delivery of one-shots among `effects`.
    static func oneShots(_ effects: Machine.Effects) -> (tags: [String], status: LocationStatus)? {
        for action in effects.actions {
            if case .completeOneShots(let recipients, let result) = action { return (recipients.map(\.handler), result.status) }
        }
        return nil
    }

    @Test("an event returns what it decided, in order; its requests have left the tables and are counted already")
    func effectsAreDecided() {
        var machine = Self.machine(oneShots: ["a", "b"], timeout: .seconds(1))
        let effects = machine.advanceTime(now: Self.now + .seconds(1))
        guard case .stopSource? = effects.actions.first, case .timeoutsExpired? = effects.actions.dropFirst().first else {
            Issue.record("the source command comes first (a handler's withdrawal decides its own after it), then the expiry: \(effects.actions)")
            return
        }
        #expect(Self.oneShots(effects)?.tags == ["a", "b"])
        #expect(Self.oneShots(effects)?.status == .timedOut)
        #expect(machine.pendingOneShots == 0)
        #expect(machine.statistics(now: Self.now).oneShotsTimedOut == 2, "counted when decided, before anything is carried out")
        #expect(!machine.hasOvertaken)
    }

    @Test("an event that decides nothing returns empty effects, and one action comes inline")
    func emptyAndSingle() {
        var machine = Self.machine(oneShots: [])
        #expect(machine.advanceTime(now: Self.now).isEmpty)
        _ = machine.submitOneShot(Self.id(1), accuracy: .block, timeout: nil, delayUntilAuthorized: false, purposeKey: nil, madeAt: nil, handler: "a", now: Self.now)
        _ = machine.submitOneShot(Self.id(2), accuracy: .block, timeout: nil, delayUntilAuthorized: false, purposeKey: nil, madeAt: nil, handler: "b", now: Self.now)
        let cancel = machine.withdraw(Self.id(1), .cancel, now: Self.now)
        #expect(cancel.count == 1)
        guard case .cancelOneShot(let recipient) = cancel[0] else {
            Issue.record("not a cancellation: \(cancel.actions)")
            return
        }
        #expect(recipient.handler == "a")
    }

    @Test("a cancel made mid-delivery overtakes an ending not reached yet; a later withdrawal of the same request changes nothing")
    func firstWithdrawalWins() {
        var machine = Self.machine(oneShots: ["a", "b"])
        let effects = machine.receiveFix(Self.fix, age: .zero, now: Self.now)
        #expect(Self.oneShots(effects)?.tags == ["a", "b"])
        #expect(machine.withdraw(Self.id(2), .cancel, now: Self.now, at: .midDelivery).isEmpty, "b has ended: nothing to decide but the record")
        #expect(machine.withdraw(Self.id(2), .forceComplete, now: Self.now, at: .midDelivery).isEmpty)
        #expect(machine.hasOvertaken)
        let success = LocationResult(status: .success, location: Self.fix, age: .zero, achievedAccuracy: .block)
        guard case .asDecided = machine.reached(oneShot: Recipient(Self.id(1), "a"), receiving: success) else {
            Issue.record("a was not withdrawn")
            return
        }
        guard case .instead(.cancelOneShot(let recipient)) = machine.reached(oneShot: Recipient(Self.id(2), "b"), receiving: success) else {
            Issue.record("b's cancel did not take effect")
            return
        }
        #expect(recipient.handler == "b")
        let statistics = machine.statistics(now: Self.now)
        #expect(statistics.oneShotsSucceeded == 1 && statistics.oneShotsCancelled == 1 && statistics.oneShotsForceCompleted == 0)
    }

    @Test("a force-complete made mid-delivery ends an overtaken one-shot force-completed; one that ended so keeps its ending")
    func forceCompleteOvertakes() {
        var machine = Self.machine(oneShots: ["a", "b"], timeout: .seconds(1))
        let timedOut = machine.advanceTime(now: Self.now + .seconds(1))
        #expect(Self.oneShots(timedOut)?.status == .timedOut)
        _ = machine.withdraw(Self.id(1), .forceComplete, now: Self.now, at: .midDelivery)
        let result = LocationResult(status: .timedOut, location: nil, age: nil, achievedAccuracy: nil)
        guard case .instead(.completeOneShots(let recipients, let forced)) = machine.reached(oneShot: Recipient(Self.id(1), "a"), receiving: result)
        else {
            Issue.record("a's force-complete did not take effect")
            return
        }
        #expect(recipients.map(\.handler) == ["a"] && forced.status == .forceCompleted)
        let statistics = machine.statistics(now: Self.now)
        #expect(statistics.oneShotsTimedOut == 1 && statistics.oneShotsForceCompleted == 1)
        // An ending that was itself a force-complete is never redirected.
        _ = machine.withdraw(Self.id(2), .cancel, now: Self.now, at: .midDelivery)
        let forcedResult = LocationResult(status: .forceCompleted, location: nil, age: nil, achievedAccuracy: nil)
        guard case .asDecided = machine.reached(oneShot: Recipient(Self.id(2), "b"), receiving: forcedResult) else {
            Issue.record("a withdrawal's own ending was redirected")
            return
        }
    }

    @Test("between events, a withdrawal of an ended request is moot; one naming an ID not submitted yet waits for it")
    func withdrawalsAhead() {
        var machine = Self.machine(oneShots: ["a"])
        _ = machine.receiveFix(Self.fix, age: .zero, now: Self.now)
        #expect(machine.withdraw(Self.id(1), .cancel, now: Self.now).isEmpty)
        #expect(!machine.hasOvertaken, "nothing decided is ahead of the owner between events")
        #expect(machine.withdraw(Self.id(5), .forceComplete, now: Self.now).isEmpty)
        #expect(machine.delivery.ahead == [Self.id(5): .forceComplete])
        let arrival = machine.submitOneShot(
            Self.id(5), accuracy: .block, timeout: nil, delayUntilAuthorized: false, purposeKey: nil, madeAt: nil, handler: "e", now: Self.now)
        #expect(Self.oneShots(arrival)?.status == .forceCompleted)
        #expect(machine.delivery.ahead.isEmpty)
    }

    @Test("an update skips a subscription that ended mid-delivery, and the records go at the next event between events")
    func updateSkipsEnded() {
        var machine = Self.machine(oneShots: [])
        for (n, tag) in [(1, "kept"), (2, "ended")] {
            _ = machine.subscribe(Self.id(UInt64(n)), options: SubscriptionOptions(), madeAt: nil, handler: tag, now: Self.now)
        }
        let effects = machine.receiveFix(Self.fix, age: .zero, now: Self.now)
        guard let update = effects.actions.lazy.compactMap({ action -> SubscriptionEvent? in
            if case .notifySubscriptions(_, let event) = action { event } else { nil }
        }).first else {
            Issue.record("no update decided")
            return
        }
        #expect(machine.statistics(now: Self.now).subscriptionUpdates == 2)
        let cancel = machine.withdraw(Self.id(2), .cancel, now: Self.now, at: .midDelivery)
        guard case .cancelSubscription? = cancel.actions.first else {
            Issue.record("the pending subscription's cancel is decided at once: \(cancel.actions)")
            return
        }
        guard case .asDecided = machine.reached(subscriber: Recipient(Self.id(1), "kept"), receiving: update),
            case .skip = machine.reached(subscriber: Recipient(Self.id(2), "ended"), receiving: update)
        else {
            Issue.record("the update did not skip the ended subscription only")
            return
        }
        #expect(machine.statistics(now: Self.now).subscriptionUpdates == 1, "the skipped update is taken back")
        _ = machine.advanceTime(now: Self.now)
        #expect(!machine.hasOvertaken)
    }

    @Test("monitors have their own deliveries: a source error and their endings; a cancel mid-delivery overtakes an ending, once")
    func monitorsOwnDeliveries() throws {
        var machine = Self.machine(oneShots: [])
        let region = try GeofenceRegion.circle(centre: GeoPoint(latitude: 48, longitude: 11), radius: 200)
        for (n, tag) in [(1, "m1"), (2, "m2")] {
            _ = machine.monitor(Self.id(UInt64(n)), region: region, options: GeofenceOptions(), madeAt: nil, handler: tag, now: Self.now)
        }
        _ = machine.subscribe(Self.id(3), options: SubscriptionOptions(), madeAt: nil, handler: "s", now: Self.now)
        let error = SourceError(code: "test.gone", message: "scripted")
        let notices = machine.receiveTransientError(error, now: Self.now)
        let monitorNotices = notices.actions.compactMap { action -> [String]? in
            if case .notifyMonitors(let recipients, .sourceError(error)) = action { recipients.map(\.handler).sorted() } else { nil }
        }
        #expect(monitorNotices == [["m1", "m2"]], "the monitors hear the error in a delivery of their own: \(notices.actions)")
        // The source fails for good: every request ends; mid-delivery, m2 is cancelled before its ending is reached.
        let ends = machine.receiveFatalError(error, now: Self.now)
        guard let ending = ends.actions.lazy.compactMap({ action -> RegionEvent? in
            if case .notifyMonitors(_, let event) = action { event } else { nil }
        }).first else {
            Issue.record("no monitor ending decided: \(ends.actions)")
            return
        }
        #expect(ending == .ended(.failed(error)))
        #expect(machine.statistics(now: Self.now).subscriptionsEnded == 3)
        #expect(machine.withdraw(Self.id(2), .cancel, now: Self.now, at: .midDelivery).isEmpty, "m2 has ended: only the record")
        guard case .asDecided = machine.reached(monitor: Recipient(Self.id(1), "m1"), receiving: ending),
            case .instead(.cancelMonitor(let recipient)) = machine.reached(monitor: Recipient(Self.id(2), "m2"), receiving: ending)
        else {
            Issue.record("the cancel did not overtake m2's ending only")
            return
        }
        #expect(recipient.handler == "m2")
        let statistics = machine.statistics(now: Self.now)
        #expect(statistics.subscriptionsEnded == 2 && statistics.subscriptionsCancelled == 1, "the counters exchange once")
        guard case .asDecided = machine.reached(monitor: Recipient(Self.id(2), "m2"), receiving: ending) else {
            Issue.record("the overtaking cancel took effect twice")
            return
        }
    }

    @Test("a walk carries an interruption's effects out first, then resumes at the next recipient of the delivery it left")
    func walkResumes() {
        typealias Walk = EffectsWalk<String, String, String>
        var first = Machine.Effects()
        first.append(.completeOneShots((1...3).map { Recipient(Self.id(UInt64($0)), "r\($0)") }, LocationResult(status: .timedOut, location: nil, age: nil, achievedAccuracy: nil)))
        first.append(.stopSource(.first))
        var walk = Walk(first)
        var carried: [String] = []
        var interruptions = 0
        actions: while let action = walk.nextAction() {
            switch action {
            case .completeOneShots(let recipients, _):
                var position = walk.resumePosition()
                while position < recipients.count {
                    let recipient = recipients[position]
                    position += 1
                    carried.append(recipient.handler)
                    // r1's handler causes a cancel, whose handler causes another: nested, not recursive.
                    if recipient.handler == "r1" {
                        walk.interrupt(with: Machine.Effects(.cancelOneShot(Recipient(Self.id(9), "c9"))), resuming: action, at: position)
                        continue actions
                    }
                }
            case .cancelOneShot(let recipient):
                carried.append(recipient.handler)
                if interruptions == 0 {
                    interruptions += 1
                    walk.interrupt(with: Machine.Effects(.cancelOneShot(Recipient(Self.id(10), "c10"))))
                }
            default: carried.append("\(action)")
            }
        }
        #expect(carried == ["r1", "c9", "c10", "r2", "r3", "stopSource(source 0)"])
        #expect(walk.depth == 0)
    }

    @Test("a chain of 100,000 handlers, each causing the next interruption, runs in order on a stack that stays shallow")
    func longChainStaysShallow() {
        var walk = EffectsWalk<String, String, String>(Machine.Effects(.cancelOneShot(Recipient(Self.id(1), "1"))))
        var carried = 0
        var deepest = 0
        while let action = walk.nextAction() {
            guard case .cancelOneShot(let recipient) = action else { continue }
            carried += 1
            deepest = max(deepest, walk.depth)
            // Each cancel's handler cancels the next request, as a handler may.
            if recipient.id.rawValue < 100_000 {
                walk.interrupt(with: Machine.Effects(.cancelOneShot(Recipient(Self.id(recipient.id.rawValue + 1), "next"))))
            }
        }
        #expect(carried == 100_000)
        #expect(deepest == 0, "a finished frame is not kept under the next")
    }

    @Test("a chain of handlers each force-completing the next, interrupting a delivery at its last recipient, keeps no frame of it")
    func forceCompleteChainStaysShallow() {
        let result = LocationResult(status: .forceCompleted, location: nil, age: nil, achievedAccuracy: nil)
        var walk = EffectsWalk<String, String, String>(Machine.Effects(.completeOneShots([Recipient(Self.id(1), "1")], result)))
        var delivered = 0
        var deepest = 0
        while let action = walk.nextAction() {
            guard case .completeOneShots(let recipients, _) = action else { continue }
            walk.deliver(
                action, to: recipients, overtaken: { _ in nil },
                hand: { recipient in
                    delivered += 1
                    guard recipient.id.rawValue < 10_000 else { return nil }
                    return Machine.Effects(.completeOneShots([Recipient(Self.id(recipient.id.rawValue + 1), "next")], result))
                })
            deepest = max(deepest, walk.depth)
        }
        #expect(delivered == 10_000)
        #expect(deepest == 0, "a delivery with no recipient left is not kept to resume")
    }
}
