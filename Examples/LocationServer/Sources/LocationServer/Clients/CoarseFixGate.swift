import LocationEngine
import NIOConcurrencyHelpers

/// The coarse fix approximate clients were last shown, for the whole server, when it was measured and when it was
/// first shown: a newer one is shown only once the reduced-accuracy policy's interval
/// (``ReducedAccuracyPolicy/minimumInterval``) has passed since that showing — as the engine spaces a stream's
/// coarse updates by when they are delivered — and never one measured before it.
///
/// The grid alone does not hide where the device is: a client polling `/location` every second (or opening a
/// stream every second, or several clients taking turns) would see the instant the coarse cell changes, and at
/// that instant the device is on the cell's edge, to within a second's travel.
final class CoarseFixGate: Sendable {
    /// The least time between the measurements of two coarse fixes shown.
    let minimumInterval: Duration
    private let shown = NIOLockedValueBox<(location: Location, measuredAt: EngineInstant, shownAt: EngineInstant)?>(nil)

    init(minimumInterval: Duration) {
        self.minimumInterval = minimumInterval
    }

    /// The coarse fix shown last, if any.
    var lastShown: Location? { shown.withLockedValue { $0?.location } }

    /// What approximate clients may see at `now` of `coarse`, measured `age` before: it, when the interval has
    /// passed since the fix shown last was first shown and it is no older than that one (it is then the one
    /// shown), else the one shown, as old as it is by `now`.
    /// - Complexity: O(1), under a lock held for the comparison only.
    func show(_ coarse: Location, age: Duration, now: EngineInstant) -> (location: Location, age: Duration) {
        let measuredAt = now - max(.zero, age)
        return shown.withLockedValue { shown in
            if let last = shown, now < last.shownAt + minimumInterval || measuredAt < last.measuredAt {
                return (last.location, max(.zero, now - last.measuredAt))
            }
            shown = (coarse, measuredAt, now)
            return (coarse, max(.zero, age))
        }
    }
}
