@testable import LocationEngine
import Testing

/// The requests part on its own: admission, the power demand of exactly the admitted requests, a fix
/// completing one-shots through the accuracy index, expiry, and the fan-out to subscriptions.
@Suite("Requests part")
struct RequestsPartTests {
    typealias Machine = SchedulerStateMachine<String, String, String>
    typealias Requests = Machine.Requests

    static let full = AccuracyRules(reduced: nil, temporaryFullAccuracy: .notAsked)
    static let reduced = AccuracyRules(reduced: ReducedAccuracyPolicy(), temporaryFullAccuracy: .notAsked)

    static func oneShot(_ tag: String, _ accuracy: LocationAccuracy, purposeKey: String? = nil) -> Machine.OneShot {
        Machine.OneShot(handler: tag, wish: OneShotWish(accuracy: accuracy, purposeKey: purposeKey, timeoutAwaitingAccess: nil))
    }

    static func fix(accuracy: Double, at instant: EngineInstant) -> StampedFix {
        StampedFix(location: Location(latitude: 52.52, longitude: 13.40, horizontalAccuracy: accuracy), observedAt: instant)
    }

    static func id(_ n: UInt64) -> RequestID { RequestID(rawValue: n) }

    @Test("the demand counts exactly the admitted requests: waiting ones join it when admitted, and leave it when removed")
    func demandCountsAdmitted() {
        var requests = Requests()
        #expect(requests.place(Self.id(1), Self.oneShot("a", .room), timeout: nil, from: .zero, delayUntilAuthorized: false, gate: .notDetermined, rules: Self.full) == .awaitingAuthorization)
        #expect(requests.demand.mode == nil)
        let admitted = requests.admitAwaitingAuthorization(rules: Self.full, now: .zero)
        #expect(admitted.needingFullAccuracy.isEmpty)
        #expect(requests.demand.mode == LocationAccuracy.room.requiredPowerMode)
        _ = requests.removeOneShot(Self.id(1))
        #expect(requests.demand.mode == nil)
        #expect(requests.count == 0)
    }

    @Test("a monitor is pending but adds no demand of its own; one waiting for authorization is admitted with the others")
    func monitorAddsNoDemand() {
        var requests = Requests()
        #expect(requests.place(Self.id(1), "m", gate: .authorized) == .admitted)
        #expect(requests.demand.mode == nil)
        #expect(requests.contains(Self.id(1)))
        #expect(requests.place(Self.id(2), "waiting", gate: .notDetermined) == .awaitingAuthorization)
        #expect(requests.awaitsAuthorization(Self.id(2)) && !requests.awaitsAuthorization(Self.id(1)))
        #expect(requests.admittedMonitors().map(\.handler) == ["m"])
        #expect(requests.admitAwaitingAuthorization(rules: Self.full, now: .zero).monitors == [Self.id(2)])
        #expect(requests.admittedMonitors().map(\.handler).sorted() == ["m", "waiting"])
        #expect(requests.demand.mode == nil)
        #expect(requests.remove([Self.id(1)]).monitors.map(\.handler) == ["m"])
        #expect(requests.count == 1)
    }

    @Test("under reduced accuracy a one-shot finer than coarse fixes is not admitted, and holding sends the keyed ones to wait")
    func reducedAccuracyHolds() {
        var requests = Requests()
        #expect(requests.place(Self.id(1), Self.oneShot("fine", .block), timeout: nil, from: .zero, delayUntilAuthorized: false, gate: .authorized, rules: Self.reduced) == .needingFullAccuracy)
        #expect(requests.place(Self.id(2), Self.oneShot("keyed", .block, purposeKey: "Navigation"), timeout: nil, from: .zero, delayUntilAuthorized: false, gate: .authorized, rules: Self.reduced) == .needingFullAccuracy)
        let (firstKey, ending) = requests.holdForFullAccuracy([Self.id(1), Self.id(2)], mayWait: true)
        #expect(firstKey == "Navigation")
        #expect(ending == [Self.id(1)])
        #expect(requests.awaitingFullAccuracy == [Self.id(2)])
        #expect(requests.demand.mode == nil)
    }

    @Test("a fix completes every one-shot it satisfies, coarsest level first, and leaves the finer ones pending")
    func fixCompletesSatisfied() {
        var requests = Requests()
        for (n, accuracy) in [(1, LocationAccuracy.room), (2, .city), (3, .block)] {
            _ = requests.place(Self.id(UInt64(n)), Self.oneShot("\(n)", accuracy), timeout: nil, from: .zero, delayUntilAuthorized: false, gate: .authorized, rules: Self.full)
        }
        guard let (recipients, result) = requests.complete(with: Self.fix(accuracy: 50, at: .zero), now: .zero) else {
            Issue.record("the fix completes nothing")
            return
        }
        #expect(recipients.map(\.handler) == ["2", "3"])
        #expect(result.status == .success && result.location?.horizontalAccuracy == 50)
        #expect(!requests.contains(Self.id(2)) && !requests.contains(Self.id(3)), "taken out of the tables at once")
        #expect(requests.contains(Self.id(1)))
        #expect(requests.demand.mode == LocationAccuracy.room.requiredPowerMode)
    }

    @Test("a fix's one-shots leave at once: the expiry due after it finds only the ones it could not satisfy")
    func expiryAfterCompletion() {
        var requests = Requests()
        _ = requests.place(Self.id(1), Self.oneShot("covered", .city), timeout: .seconds(1), from: .zero, delayUntilAuthorized: false, gate: .authorized, rules: Self.full)
        _ = requests.place(Self.id(2), Self.oneShot("too fine", .room), timeout: .seconds(1), from: .zero, delayUntilAuthorized: false, gate: .authorized, rules: Self.full)
        let completed = requests.complete(with: Self.fix(accuracy: 50, at: .zero), now: .zero)
        #expect(completed?.0.map(\.handler) == ["covered"])
        let expired = requests.expire(now: .zero + .seconds(1))
        #expect(expired.oneShots.map(\.handler) == ["too fine"])
        #expect(!requests.contains(Self.id(1)) && !requests.contains(Self.id(2)))
    }

    @Test("a fix reaches admitted subscriptions through their filters; one reaching its maximum is removed and named")
    func fanOut() {
        var requests = Requests()
        let once = Machine.Subscription(handler: "once", options: SubscriptionOptions(maximumUpdates: 1))
        let heading = Machine.Subscription(handler: "heading", options: SubscriptionOptions(kind: .heading))
        for (n, subscription) in [once, heading].enumerated() {
            _ = requests.place(Self.id(UInt64(n + 1)), subscription, from: .zero, gate: .authorized, rules: Self.full)
        }
        _ = requests.place(Self.id(3), "monitor", gate: .authorized)
        let fanOut = requests.offer(Self.fix(accuracy: 5, at: .zero), now: .zero)
        #expect(fanOut.runs.map(\.heading) == [false])
        #expect(fanOut.runs.flatMap(\.recipients).map(\.handler) == ["once"])
        #expect(fanOut.exhausted.map(\.handler) == ["once"])
        #expect(!requests.contains(Self.id(1)))
        #expect(requests.contains(Self.id(3)))
    }

    @Test("one table holds every kind: each request has one entry, counted by kind, and leaves it as the kind it came in")
    func oneTableOfEveryKind() {
        var requests = Requests()
        // Kinds interleaved by ID: monitors 1 and 5, one-shots 2 and 6, subscriptions 3 and 4.
        _ = requests.place(Self.id(5), "m5", gate: .authorized)
        _ = requests.place(Self.id(1), "m1", gate: .authorized)
        _ = requests.place(Self.id(6), Self.oneShot("o6", .block), timeout: nil, from: .zero, delayUntilAuthorized: false, gate: .authorized, rules: Self.full)
        _ = requests.place(Self.id(2), Self.oneShot("o2", .city), timeout: nil, from: .zero, delayUntilAuthorized: false, gate: .notDetermined, rules: Self.full)
        for n in [4, 3] as [UInt64] {
            _ = requests.place(Self.id(n), Machine.Subscription(handler: "s\(n)", options: SubscriptionOptions()), from: .zero, gate: .authorized, rules: Self.full)
        }
        #expect((requests.count, requests.oneShotCount, requests.subscriptions.count, requests.monitorCount) == (6, 2, 2, 2))
        #expect((1...6).allSatisfy { requests.contains(Self.id($0)) } && !requests.contains(Self.id(7)))
        #expect(requests.oneShot(Self.id(6))?.handler == "o6" && requests.oneShot(Self.id(5)) == nil && requests.oneShot(Self.id(3)) == nil)
        #expect(requests.monitor(Self.id(1))?.handler == "m1" && requests.monitor(Self.id(2)) == nil)
        #expect(requests.phase(of: Self.id(2)) == .awaitingAuthorization && requests.phase(of: Self.id(3)) == .admitted && requests.phase(of: Self.id(1)) == nil)
        // The monitors admitted, in submission order whatever order they came in.
        #expect(requests.admittedMonitors().map(\.handler) == ["m1", "m5"])
        // Each leaves as its kind; a second removal finds nothing.
        guard case .subscription(let subscriber)? = requests.remove(Self.id(3)) else {
            Issue.record("a subscription left as another kind")
            return
        }
        #expect(subscriber == "s3")
        guard case .monitor(let monitor)? = requests.remove(Self.id(5)) else {
            Issue.record("a monitor left as another kind")
            return
        }
        #expect(monitor == "m5")
        #expect(requests.remove(Self.id(5)) == nil && requests.remove(Self.id(3)) == nil)
        #expect((requests.count, requests.oneShotCount, requests.subscriptions.count, requests.monitorCount) == (4, 2, 1, 1))
        // Everything else ends: one-shots, then subscriptions, then monitors, each in submission order.
        let removed = requests.removeAll(onlyAdmitted: false)
        #expect(removed.oneShots.map(\.handler) == ["o2", "o6"])
        #expect(removed.subscribers.map(\.handler) == ["s4"])
        #expect(removed.monitors.map(\.handler) == ["m1"])
        #expect((requests.count, requests.oneShotCount, requests.subscriptions.count, requests.monitorCount) == (0, 0, 0, 0))
        #expect(requests.demand.mode == nil)
    }

    @Test("an ID used again for a subscription after its one-shot ended: a fix that the old one-shot's accuracy entry meets leaves the subscription alone")
    func anIDUsedAgainKeepsItsKind() {
        var requests = Requests()
        _ = requests.place(Self.id(1), Self.oneShot("old", .city), timeout: nil, from: .zero, delayUntilAuthorized: false, gate: .authorized, rules: Self.full)
        #expect(requests.removeOneShot(Self.id(1))?.handler == "old")
        // Its entry in the accuracy index stays behind; the owner hands the ID out again.
        _ = requests.place(Self.id(1), Machine.Subscription(handler: "new", options: SubscriptionOptions(accuracy: .city)), from: .zero, gate: .authorized, rules: Self.full)
        let demand = requests.demand.mode
        #expect(requests.complete(with: Self.fix(accuracy: 5, at: .zero), now: .zero) == nil)
        #expect(requests.subscriptions[Self.id(1)]?.handler == "new" && requests.contains(Self.id(1)))
        #expect(requests.demand.mode == demand && requests.oneShotCount == 0)
    }

    @Test("removing everything admitted leaves those waiting for access")
    func removeAllAdmitted() {
        var requests = Requests()
        _ = requests.place(Self.id(1), Self.oneShot("admitted", .city), timeout: nil, from: .zero, delayUntilAuthorized: false, gate: .authorized, rules: Self.full)
        _ = requests.place(Self.id(2), Self.oneShot("waiting", .city), timeout: nil, from: .zero, delayUntilAuthorized: false, gate: .notDetermined, rules: Self.full)
        let removed = requests.removeAll(onlyAdmitted: true)
        #expect(removed.oneShots.map(\.handler) == ["admitted"])
        #expect(requests.phase(of: Self.id(2)) == .awaitingAuthorization)
    }

    @Test("a timeout that waits for access is held by the wish until authorization is granted, then runs among the deadlines")
    func delayedTimeoutLeavesTheWish() {
        var requests = Requests()
        _ = requests.place(Self.id(1), Self.oneShot("delayed", .room), timeout: .seconds(30), from: .zero, delayUntilAuthorized: true, gate: .notDetermined, rules: Self.full)
        #expect(requests.oneShot(Self.id(1))?.wish.timeoutAwaitingAccess == .seconds(30))
        #expect(requests.deadlines.earliest == nil)
        let granted = EngineInstant.zero + .seconds(5)
        _ = requests.admitAwaitingAuthorization(rules: Self.full, now: granted)
        #expect(requests.oneShot(Self.id(1))?.wish.timeoutAwaitingAccess == nil)
        #expect(requests.deadlines.earliest == granted + .seconds(30))
        // Admitted at once, a delayed timeout runs from the start and the wish stays inline.
        _ = requests.place(Self.id(2), Self.oneShot("at once", .room), timeout: .seconds(10), from: .zero, delayUntilAuthorized: true, gate: .authorized, rules: Self.full)
        #expect(requests.oneShot(Self.id(2))?.wish.timeoutAwaitingAccess == nil)
        #expect(requests.deadlines.earliest == .zero + .seconds(10))
    }

    @Test("a request's phase names what it waits for: authorization, full accuracy never had, or full accuracy again once held")
    func phases() {
        var requests = Requests()
        _ = requests.place(Self.id(1), Self.oneShot("authorization", .block, purposeKey: "Navigation"), timeout: nil, from: .zero, delayUntilAuthorized: false, gate: .notDetermined, rules: Self.full)
        _ = requests.place(Self.id(2), Self.oneShot("admitted", .block, purposeKey: "Navigation"), timeout: nil, from: .zero, delayUntilAuthorized: false, gate: .authorized, rules: Self.full)
        #expect(requests.phase(of: Self.id(1)) == .awaitingAuthorization)
        #expect(requests.phase(of: Self.id(2)) == .admitted)
        // Accuracy becomes reduced: the admitted one is held, the one granted now never had it.
        #expect(requests.holdUnservable(rules: Self.reduced) == [Self.id(2)])
        #expect(requests.phase(of: Self.id(2)) == .held)
        let admitted = requests.admitAwaitingAuthorization(rules: Self.reduced, now: .zero)
        #expect(admitted.needingFullAccuracy == [Self.id(1)])
        #expect(requests.phase(of: Self.id(1)) == .awaitingFullAccuracy)
        _ = requests.holdForFullAccuracy([Self.id(2), Self.id(1)], mayWait: true)
        #expect(requests.demand.mode == nil)
        // Full accuracy comes back: both are admitted, the held one with its index entry of before.
        requests.admitAwaitingFullAccuracy(now: .zero)
        #expect(requests.phase(of: Self.id(1)) == .admitted)
        #expect(requests.phase(of: Self.id(2)) == .admitted)
        #expect(requests.index.count == 2)
    }
}
