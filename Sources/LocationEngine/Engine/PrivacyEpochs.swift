import Atomics

/// How many times location access was reduced (to reduced accuracy) or lost, since the engine started.
///
/// Events waiting in an ``LocationUpdates`` buffer were delivered under the access of their moment.
/// Each carries the counts of its moment; when the reader takes it, a count that has moved since
/// means access was reduced or lost in between, and the event is coarsened or dropped before the
/// reader sees it. Two relaxed atomic loads per event: the engine's actor writes, any reader reads.
final class PrivacyEpochs: Sendable {
    /// The counts at one moment.
    struct Stamp: Sendable, Hashable {
        var reductions: UInt32
        var revocations: UInt32
    }

    private let reductions = ManagedAtomic<UInt32>(0)
    private let revocations = ManagedAtomic<UInt32>(0)
    /// How fixes are coarsened under reduced accuracy.
    let policy: ReducedAccuracyPolicy

    init(policy: ReducedAccuracyPolicy) {
        self.policy = policy
    }

    /// The counts now.
    @inline(__always)
    var stamp: Stamp {
        Stamp(reductions: reductions.load(ordering: .acquiring), revocations: revocations.load(ordering: .acquiring))
    }

    /// Access dropped to reduced accuracy: buffered precise events must be coarsened.
    func noteReduction() { reductions.wrappingIncrement(ordering: .releasing) }

    /// Access was lost: buffered events must not be read at all.
    func noteRevocation() { revocations.wrappingIncrement(ordering: .releasing) }

    /// What of `event`, delivered at `stamp`, the reader may see now: itself, a coarsened copy, or
    /// nothing. Ends and errors always pass.
    func admit(_ event: SubscriptionEvent, deliveredAt stamp: Stamp) -> SubscriptionEvent? {
        let now = self.stamp
        if now == stamp { return event }
        switch event {
        case .sourceError, .ended:
            return event
        case .heading:
            return nil  // access was lost, or a course is finer than any coarsened fix
        case .location(let update):
            if now.revocations != stamp.revocations { return nil }
            if now.reductions == stamp.reductions || policy.isCoarse(update.location) { return event }
            return .location(policy.coarsened(update))
        }
    }
}
