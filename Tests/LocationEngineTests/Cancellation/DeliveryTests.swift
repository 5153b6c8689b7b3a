import Testing

@testable import LocationEngine

/// How decided deliveries are carried out: a withdrawal issued by a handler mid-delivery reaches a
/// later recipient of the same delivery, and what falls due during a long delivery goes first, between
/// two handlers.
@Suite("Deliveries: interruptions and withdrawals")
struct DeliveryTests {
    @Test("1,000 one-shots a fix satisfies end exactly once, in submission order; the source stops after the last")
    func oneFixManyOneShots() {
        var h = MachineHarness()
        for index in 0..<1_000 { h.oneShot("r\(index)", .block) }
        h.fix(50)
        #expect(h.completionOrder == (0..<1_000).map { "r\($0)" })
        #expect(h.results.values.allSatisfy { $0.count == 1 && $0[0].status == .success && $0[0].location?.horizontalAccuracy == 50 })
        #expect(h.sourceCommands == [.start(.medium), .stop])
        #expect(h.machine.statistics(now: h.now).oneShotsSucceeded == 1_000)
        #expect(h.machine.requests.index.count == 0, "no entry of an ended one-shot is left in the index")
    }

    @Test("a timeout falling due during a long delivery is carried out before the next recipient")
    func timeoutBetweenSlices() {
        var h = MachineHarness()
        for index in 0..<1_000 { h.oneShot("r\(index)", .block, timeout: .seconds(1)) }
        h.oneShot("room", .room, timeout: .seconds(1))
        h.whileDelivering = { tag in tag == "r150" ? ([], .seconds(2)) : nil }
        h.fix(50)
        let roomPosition = h.completionOrder.firstIndex(of: "room")
        #expect(roomPosition == 151, "after r150, whose handler let the deadline pass, and before r151")
        #expect(h.onlyResult("room")?.status == .timedOut)
        for index in 0..<1_000 { #expect(h.onlyResult("r\(index)")?.status == .success, "the fix came before the deadline") }
        let statistics = h.machine.statistics(now: h.now)
        #expect(statistics.oneShotsSucceeded == 1_000)
        #expect(statistics.oneShotsTimedOut == 1)
        #expect(h.machine.nextWakeup == nil, "no deadline of an ended request is left to wake for")
    }

    @Test("a handler cancels a later one-shot of the same fix: it is cancelled, never delivered")
    func cancelLaterRecipientOfFix() {
        var h = MachineHarness()
        for index in 0..<30 { h.oneShot("r\(index)", .block) }
        h.whileDelivering = { tag in tag == "r5" ? ([("r25", .cancel), ("r26", .forceComplete)], .zero) : nil }
        h.fix(50)
        #expect(h.results["r25"] == nil)
        #expect(h.cancelled == ["r25"])
        #expect(h.onlyResult("r26")?.status == .forceCompleted)
        #expect(h.completionOrder.count == 29)
        let statistics = h.machine.statistics(now: h.now)
        #expect(statistics.oneShotsSucceeded == 28)
        #expect(statistics.oneShotsCancelled == 1)
        #expect(statistics.oneShotsForceCompleted == 1)
        #expect(h.machine.requests.index.count == 0, "no entry of an ended one-shot is left in the index")
    }

    @Test("a handler withdraws one-shots of the same timeout: the withdrawal wins, and each counts once")
    func withdrawWithinTimeouts() {
        var h = MachineHarness()
        for index in 0..<10 { h.oneShot("t\(index)", .room, timeout: .seconds(1)) }
        h.whileDelivering = { tag in tag == "t0" ? ([("t5", .cancel), ("t6", .forceComplete), ("t0", .cancel)], .zero) : nil }
        h.advance(by: .seconds(1))
        #expect(h.results["t5"] == nil)
        #expect(h.cancelled == ["t5"], "t0 had already been handed its result: its cancel is a no-op")
        #expect(h.onlyResult("t6")?.status == .forceCompleted)
        for index in [0, 1, 2, 3, 4, 7, 8, 9] { #expect(h.onlyResult("t\(index)")?.status == .timedOut) }
        let statistics = h.machine.statistics(now: h.now)
        #expect(statistics.oneShotsTimedOut == 8)
        #expect(statistics.oneShotsCancelled == 1)
        #expect(statistics.oneShotsForceCompleted == 1)
        #expect(h.expiryPasses == [EngineInstant(.seconds(1))])
        h.advance(by: .zero)
        #expect(!h.machine.hasOvertaken, "withdrawals of ended requests are forgotten at the next event between events")
    }

    @Test("a handler withdraws subscribers of the same fix: a cancelled one hears nothing more, a force-completed one ends")
    func withdrawSubscribers() {
        // Subscriptions are fanned out in no set order: the first to hear withdraws two that have not.
        for (cancelTarget, forceTarget) in [("open", "s3"), ("s3", "open")] {
            var h = MachineHarness()
            for index in 0..<5 { h.subscribe("s\(index)", SubscriptionOptions(maximumUpdates: 1)) }
            h.subscribe("open")
            let first = FirstTag()
            h.whileDelivering = { tag in
                guard first.claim(tag) else { return nil }
                let others = ["s3", "open", "s1", "s2"].filter { $0 != tag }
                let targets = tag == cancelTarget || tag == forceTarget ? (others[0], others[1]) : (cancelTarget, forceTarget)
                return ([(targets.0, .cancel), (targets.1, .forceComplete)], .zero)
            }
            h.fix(50)
            let (cancelled, forced) = (h.cancelled.first ?? "", h.events.keys.first { h.ends($0) == [.forceCompleted] } ?? "")
            #expect(h.cancelled.count == 1)
            #expect(h.events[cancelled] == nil || h.events[cancelled]!.isEmpty, "cancelled before the update reached it: nothing at all")
            #expect(h.ends(forced) == [.forceCompleted], "force-completed: its end, exactly once")
            #expect(h.deliveredAccuracies(forced).count <= 1)
            for tag in ["s0", "s1", "s2", "s3", "s4", "open"] where tag != cancelled && tag != forced {
                #expect(h.deliveredAccuracies(tag) == [50])
                #expect(h.ends(tag) == (tag == "open" ? [] : [.maximumUpdatesReached]))
            }
            let statistics = h.machine.statistics(now: h.now)
            #expect(statistics.subscriptionsCancelled == 1)
            #expect(statistics.subscriptionsEnded == h.events.keys.filter { !h.ends($0).isEmpty }.count)
            #expect(statistics.subscriptionUpdates == h.events.keys.reduce(0) { $0 + h.deliveredAccuracies($1).count })
            h.advance(by: .zero)
            #expect(!h.machine.hasOvertaken)
        }
    }

    @Test("a withdrawal naming a request not submitted yet ends it as it arrives")
    func withdrawalAhead() {
        var h = MachineHarness()
        h.carryOut(h.machine.withdraw(RequestID(rawValue: 1), .cancel, now: h.now))
        h.carryOut(h.machine.withdraw(RequestID(rawValue: 2), .forceComplete, now: h.now))
        h.oneShot("a", .block)
        h.subscribe("b")
        #expect(h.cancelled == ["a"])
        #expect(h.ends("b") == [.forceCompleted])
        #expect(h.sourceCommands.isEmpty, "neither request ever needed the source")
        #expect(h.machine.delivery.ahead.isEmpty)
    }

    @Test("an authorization change due mid-delivery: the fix's one-shots reached before it succeed; those reached after end as the change ended the pending, without the fix")
    func authorizationChangeMidDelivery() {
        var h = MachineHarness()
        for index in 0..<30 { h.oneShot("r\(index)", .block) }
        h.oneShot("room", .room)
        h.receive(MachineHarness.picture(.unauthorized(.denied), .full), after: .seconds(1))
        h.whileDelivering = { tag in tag == "r3" ? ([], .seconds(2)) : nil }
        h.fix(50)
        for index in 0..<4 { #expect(h.onlyResult("r\(index)")?.status == .success) }
        for index in 4..<30 {
            let result = h.onlyResult("r\(index)")
            #expect(result?.status == .unauthorized(.denied) && result?.location == nil, "r\(index): \(String(describing: result))")
        }
        #expect(h.onlyResult("room")?.status == .unauthorized(.denied))
        #expect(h.pictures.last == MachineHarness.picture(.unauthorized(.denied), .full))
        let statistics = h.machine.statistics(now: h.now)
        #expect(statistics.oneShotsSucceeded == 4 && statistics.oneShotsFailed == 27)
    }

    @Test("access lost while timeouts are handed out: the one-shots reached after it still timed out, without the best fix")
    func revocationMidDeliveryStripsTimeouts() {
        var h = MachineHarness()
        for index in 0..<10 { h.oneShot("t\(index)", .room, timeout: .seconds(5)) }
        h.fix(500)
        h.receive(MachineHarness.picture(.unauthorized(.denied), .full), after: .seconds(6))
        h.whileDelivering = { tag in tag == "t0" ? ([], .seconds(2)) : nil }
        h.advance(by: .seconds(5))
        #expect(h.onlyResult("t0")?.status == .timedOut && h.onlyResult("t0")?.location != nil)
        for index in 1..<10 {
            let result = h.onlyResult("t\(index)")
            #expect(result?.status == .timedOut && result?.location == nil && result?.reason == nil, "t\(index): \(String(describing: result))")
        }
        #expect(h.machine.statistics(now: h.now).oneShotsTimedOut == 10)
    }

    @Test("accuracy reduced mid-delivery: after the change is announced, nothing precise reaches anyone — results and updates coarsened, headings dropped")
    func reductionMidDelivery() {
        let policy = ReducedAccuracyPolicy()
        var h = MachineHarness(purposeKeys: ["Navigation"])
        h.oneShot("first", .block)
        h.oneShot("second", .block)
        h.subscribe("updates", SubscriptionOptions())
        h.subscribe("heading", SubscriptionOptions(kind: .heading, purposeKey: "Navigation"))
        h.receive(MachineHarness.picture(.authorized, .reduced), after: .seconds(1))
        // The first one-shot's handler takes two seconds: the reduction falls due before the others are reached.
        h.whileDelivering = { tag in tag == "first" ? ([], .seconds(2)) : nil }
        h.fix(50, course: 90)
        #expect(h.pictures.last == MachineHarness.picture(.authorized, .reduced))
        #expect(h.onlyResult("first").map { !policy.isCoarse($0.location!) } == true, "reached before the change: as decided")
        let second = h.onlyResult("second")
        #expect(second.map { policy.isCoarse($0.location!) } == true && second?.status == .success, "\(String(describing: second))")
        let updates = (h.events["updates"] ?? []).compactMap { if case .location(let update) = $0 { update.location } else { nil } }
        #expect(updates.count == 1 && updates.allSatisfy(policy.isCoarse), "\(updates)")
        #expect(!(h.events["heading"] ?? []).contains { if case .heading = $0 { true } else { false } }, "no course after the change")
        #expect(h.machine.statistics(now: h.now).subscriptionUpdates == 1)
    }

    @Test("access lost mid-delivery: no update reaches a subscription after the change is announced, not even one the fix exhausted")
    func revocationMidDeliveryReachesNoExhaustedSubscription() {
        var h = MachineHarness()
        h.subscribe("a")
        h.subscribe("x", SubscriptionOptions(maximumUpdates: 1))
        h.subscribe("heading", SubscriptionOptions(kind: .heading, maximumUpdates: 1))
        h.receive(MachineHarness.picture(.unauthorized(.denied), .full), after: .seconds(1))
        // The first subscriber's handler takes two seconds: the denial falls due before the others are reached.
        h.whileDelivering = { tag in tag == "a" ? ([], .seconds(2)) : nil }
        h.fix(5, course: 90)
        #expect(h.pictures.last == MachineHarness.picture(.unauthorized(.denied), .full))
        #expect(h.deliveredAccuracies("a") == [5], "reached before the change: as decided")
        #expect(h.deliveredAccuracies("x").isEmpty, "\(h.events["x"] ?? [])")
        #expect(!(h.events["heading"] ?? []).contains { if case .heading = $0 { true } else { false } })
        #expect(h.ends("x") == [.maximumUpdatesReached] && h.ends("heading") == [.maximumUpdatesReached])
        #expect(h.machine.statistics(now: h.now).subscriptionUpdates == 1)
    }

    @Test("accuracy reduced mid-delivery: a subscription held for full accuracy hears no coarsened update its filter refuses")
    func reductionMidDeliveryReachesNoHeldSubscription() {
        var h = MachineHarness(purposeKeys: ["Navigation"])
        h.subscribe("first")
        h.subscribe("house", SubscriptionOptions(accuracy: .house, purposeKey: "Navigation"))
        h.receive(MachineHarness.picture(.authorized, .reduced), after: .seconds(1))
        h.whileDelivering = { tag in tag == "first" ? ([], .seconds(2)) : nil }
        h.fix(5)
        #expect(h.deliveredAccuracies("first") == [5])
        #expect(h.deliveredAccuracies("house").isEmpty, "\(h.events["house"] ?? [])")
        #expect(h.ends("house").isEmpty, "held, waiting for temporary full accuracy")
        #expect(h.machine.statistics(now: h.now).subscriptionUpdates == 1)
    }

    @Test("accuracy reduced and full again within one slow handler: what is reached after the second change is as decided")
    func reductionUndoneMidDelivery() {
        let policy = ReducedAccuracyPolicy()
        var h = MachineHarness()
        h.oneShot("first", .block)
        h.oneShot("second", .block)
        h.receive(MachineHarness.picture(.authorized, .reduced), after: .seconds(1))
        h.receive(MachineHarness.picture(.authorized, .full), after: .seconds(2))
        h.whileDelivering = { tag in tag == "first" ? ([], .seconds(3)) : nil }
        h.fix(50)
        #expect(h.pictures.last == MachineHarness.picture(.authorized, .full))
        #expect(h.onlyResult("second").map { !policy.isCoarse($0.location!) } == true, "full again when it is reached")
    }

    @Test("custom accuracies too old for the fix go back to the index at once, and a fresh fix completes them")
    func customRecency() {
        var h = MachineHarness()
        for index in 0..<5 { h.oneShot("fresh\(index)", .custom(metres: 100, maximumAge: .seconds(60))) }
        h.oneShot("strict", .custom(metres: 100, maximumAge: .seconds(1)))
        h.fix(50, age: .seconds(10))
        #expect(h.completionOrder.count == 5)
        #expect(h.results["strict"] == nil)
        h.fix(50)
        #expect(h.onlyResult("strict")?.status == .success)
    }
}

/// Remembers the first tag it is shown (for a handler script that acts once).
private final class FirstTag: @unchecked Sendable {
    // Only touched from the test's own thread: the harness runs handlers synchronously.
    private var tag: String?

    /// Whether `tag` is the first one shown.
    func claim(_ tag: String) -> Bool {
        guard self.tag == nil else { return false }
        self.tag = tag
        return true
    }
}
