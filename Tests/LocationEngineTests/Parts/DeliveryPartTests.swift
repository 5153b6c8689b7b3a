@testable import LocationEngine
import Testing

/// The delivery part on its own: what was decided is handed out once and in order, and a withdrawal
/// reaches an ending not handed out yet — the first withdrawal made being the one that takes effect.
@Suite("Delivery part")
struct DeliveryPartTests {
    typealias Machine = SchedulerStateMachine<String, String>
    typealias Delivery = Machine.Delivery

    static let timedOut = LocationResult(status: .timedOut, location: nil, age: nil, achievedAccuracy: nil)
    static func id(_ n: UInt64) -> RequestID { RequestID(rawValue: n) }
    /// Access with no fix known: a force-complete carries none.
    static let access = Machine.Access(picture: AuthorizationState(status: .authorizedWhenInUse), reducedAccuracy: ReducedAccuracyPolicy())

    /// Hands out everything queued, as the engine does: the actions, and each group's recipients.
    static func drain(_ delivery: inout Delivery) -> [String] {
        var handed: [String] = []
        var requests = Machine.Requests()
        while let action = delivery.takeNextAction() {
            switch action {
            case .completeOneShots(let result):
                handing: while true {
                    switch delivery.nextOneShot(taking: &requests) {
                    case .handOut(let recipient): handed.append("\(recipient.handler):\(result.status)")
                    case .withdrawn(let recipient, let withdrawal):
                        switch withdrawal {
                        case .cancel: delivery.cancel(recipient)
                        case .forceComplete: delivery.forceComplete(recipient, Self.access.result(.forceCompleted, now: .zero))
                        }
                    case .none, .fixCompleted: break handing
                    }
                }
            case .notifySubscriptions(let event):
                let name = if case .ended = event { "ended" } else { "update" }
                while let recipient = delivery.nextSubscriber() { handed.append("\(recipient.handler):\(name)") }
            case .cancelOneShot(let recipient): handed.append("\(recipient.handler):cancelled")
            default: handed.append("\(action)")
            }
        }
        return handed
    }

    @Test("what is decided is handed out once, in the order decided")
    func handedOutInOrder() {
        var delivery = Delivery(slice: .max)
        delivery.emitOneShots([Recipient(Self.id(1), "a"), Recipient(Self.id(2), "b")], Self.timedOut, .timedOut)
        delivery.emitSubscribers([Recipient(Self.id(3), "s")], .ended(.durationElapsed))
        #expect(Self.drain(&delivery) == ["a:timed out", "b:timed out", "s:ended"])
        #expect(Self.drain(&delivery) == [])
        #expect(delivery.counts.oneShotsTimedOut == 2)
        #expect(delivery.counts.subscriptionsEnded == 1)
    }

    @Test("a cancel reaching an ending not handed out yet redirects it; a later withdrawal of the same request changes nothing")
    func firstWithdrawalWins() {
        var delivery = Delivery(slice: .max)
        delivery.emitOneShots([Recipient(Self.id(1), "a"), Recipient(Self.id(2), "b")], Self.timedOut, .timedOut)
        delivery.recordWithdrawal(Self.id(2), .cancel)
        delivery.recordWithdrawal(Self.id(2), .forceComplete)
        #expect(Self.drain(&delivery) == ["a:timed out", "b:cancelled"])
        #expect(delivery.counts.oneShotsCancelled == 1)
        #expect(delivery.counts.oneShotsForceCompleted == 0)
    }

    @Test("a force-complete reaching an ending not handed out yet ends it force-completed")
    func forceCompleteRedirects() {
        var delivery = Delivery(slice: .max)
        delivery.emitOneShots([Recipient(Self.id(1), "a"), Recipient(Self.id(2), "b")], Self.timedOut, .timedOut)
        delivery.recordWithdrawal(Self.id(1), .forceComplete)
        // The redirected ending is a group of its own, handed out after the one it was taken from.
        #expect(Self.drain(&delivery) == ["b:timed out", "a:force-completed"])
        #expect(delivery.counts.oneShotsForceCompleted == 1)
        #expect(delivery.counts.oneShotsTimedOut == 1)
    }

    @Test("a withdrawal of a request not submitted yet waits for it; one of a request long ended is forgotten")
    func withdrawalsAhead() {
        var delivery = Delivery(slice: .max)
        #expect(delivery.takeWithdrawalAhead(of: Self.id(1)) == nil)
        delivery.recordWithdrawal(Self.id(5), .forceComplete)
        delivery.recordWithdrawal(Self.id(1), .cancel)  // already submitted, nothing queued: moot
        #expect(!delivery.isWithdrawn(Self.id(1)))
        #expect(Self.drain(&delivery) == [])
        #expect(delivery.takeWithdrawalAhead(of: Self.id(5)) == .forceComplete)
    }

    @Test("an update skips a subscription that ended after it was decided")
    func updateSkipsEnded() {
        var delivery = Delivery(slice: .max)
        let update = SubscriptionEvent.sourceError(SourceError(code: "x", message: "y"))
        delivery.emitSubscribers([Recipient(Self.id(1), "kept"), Recipient(Self.id(2), "ended")], update)
        delivery.subscriptionEnded(Self.id(2))
        #expect(Self.drain(&delivery).map { $0.prefix(while: { $0 != ":" }) } == ["kept"])
    }

    @Test("a large group gives way after its slice, and what was decided meanwhile goes first")
    func slicesGiveWay() {
        var delivery = Delivery(slice: 2)
        delivery.outbox.beginEvent()
        delivery.emitOneShots((1...4).map { Recipient(Self.id(UInt64($0)), "\($0)") }, Self.timedOut, .timedOut)
        guard case .completeOneShots? = delivery.takeNextAction() else {
            Issue.record("no group")
            return
        }
        var requests = Machine.Requests()
        var first: [String] = []
        for _ in 0..<2 { if case .handOut(let recipient) = delivery.nextOneShot(taking: &requests) { first.append(recipient.handler) } }
        #expect(first == ["1", "2"])
        delivery.outbox.beginEvent()
        delivery.emit(.stopSource(.first))
        guard case .none = delivery.nextOneShot(taking: &requests) else {
            Issue.record("the group did not give way")
            return
        }
        #expect(Self.drain(&delivery) == ["stopSource(source 0)", "3:timed out", "4:timed out"])
    }
}
