import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers

/// The design locbench measures the engine against, kept honest and small: what one writes first.
///
/// - every one-shot with a timeout spawns a `Task` that sleeps for it;
/// - requests live in one array behind one lock, scanned in full for every fix, cancel and timeout;
/// - the source runs in its best mode whenever any request exists, and stops at once when none does.
///
/// It is correct (each request ends once), only slow and hungry.
final class NaiveLocationManager<C: Clock>: LocationService, @unchecked Sendable where C.Duration == Duration {
    // All mutable state is behind `lock`.
    private struct Entry {
        var id: RequestID
        var accuracy: LocationAccuracy?
        var options: SubscriptionOptions?
        var oneShot: (@Sendable (LocationResult) -> Void)?
        var subscription: (@Sendable (RequestID, SubscriptionEvent) -> Void)?
        var delivered = 0
    }

    private let lock = NIOLock()
    private var entries: [Entry] = []
    private var nextID: UInt64 = 1
    private var sourceOn = false
    private var lastFix: (Location, C.Instant)?
    private var cancelled = 0
    private var starts = 0
    private var stops = 0
    private let timers = NIOLockedValueBox((started: 0, finished: 0))

    let source: any LocationSource
    let clock: C

    init(source: any LocationSource, clock: C) {
        self.source = source
        self.clock = clock
    }

    func location(accuracy: LocationAccuracy, timeout: Duration?, handler: @escaping @Sendable (LocationResult) -> Void) -> RequestID {
        let timeout = timeout.flatMap { $0 > .zero ? $0 : nil }
        let id = lock.withLock {
            let id = RequestID(rawValue: nextID)
            nextID += 1
            entries.append(Entry(id: id, accuracy: accuracy, oneShot: handler))
            return id
        }
        powerIfNeeded()
        if let timeout {
            timers.withLockedValue { $0.started += 1 }
            Task {
                try? await clock.sleep(for: timeout)
                self.expire(id)
                self.timers.withLockedValue { $0.finished += 1 }
            }
        }
        return id
    }

    func updates(_ options: SubscriptionOptions, handler: @escaping @Sendable (RequestID, SubscriptionEvent) -> Void) -> RequestID {
        let id = lock.withLock {
            let id = RequestID(rawValue: nextID)
            nextID += 1
            entries.append(Entry(id: id, options: options, subscription: handler))
            return id
        }
        powerIfNeeded()
        if let duration = options.duration {
            timers.withLockedValue { $0.started += 1 }
            Task {
                try? await clock.sleep(for: duration)
                self.expire(id)
                self.timers.withLockedValue { $0.finished += 1 }
            }
        }
        return id
    }

    func cancel(_ id: RequestID) {
        let removed = lock.withLock { () -> Bool in
            guard let index = entries.firstIndex(where: { $0.id == id }) else { return false }
            entries.remove(at: index)
            cancelled += 1
            return true
        }
        if removed { powerDownIfIdle() }
    }

    func forceComplete(_ id: RequestID) {
        end(id, status: .forceCompleted, subscriptionEnd: .forceCompleted)
    }

    /// The timer of a request fired.
    private func expire(_ id: RequestID) {
        end(id, status: .timedOut, subscriptionEnd: .durationElapsed)
    }

    private func end(_ id: RequestID, status: LocationStatus, subscriptionEnd: SubscriptionEnd) {
        let (entry, best) = lock.withLock { () -> (Entry?, (Location, C.Instant)?) in
            guard let index = entries.firstIndex(where: { $0.id == id }) else { return (nil, nil) }
            return (entries.remove(at: index), lastFix)
        }
        guard let entry else { return }
        if let handler = entry.oneShot {
            let now = clock.now
            handler(LocationResult(
                status: status, location: best?.0, age: best.map { $0.1.duration(to: now) },
                achievedAccuracy: best.flatMap { AccuracyLevel.achieved(horizontalAccuracy: $0.0.horizontalAccuracy, age: $0.1.duration(to: now)) },
                requestID: id))
        } else {
            entry.subscription?(id, .ended(subscriptionEnd))
        }
        powerDownIfIdle()
    }

    /// A fix: scan every request once (the entries that stay are kept in one pass, so a fix costs O(n)
    /// however many it ends).
    func receive(_ location: Location) {
        let now = clock.now
        var completed: [(@Sendable (LocationResult) -> Void, RequestID)] = []
        var notified: [(@Sendable (RequestID, SubscriptionEvent) -> Void, RequestID)] = []
        var exhausted: [(@Sendable (RequestID, SubscriptionEvent) -> Void, RequestID)] = []
        lock.withLock {
            lastFix = (location, now)
            var kept: [Entry] = []
            kept.reserveCapacity(entries.count)
            for var entry in entries {
                if let accuracy = entry.accuracy {
                    if location.horizontalAccuracy <= accuracy.horizontalAccuracy {
                        completed.append((entry.oneShot!, entry.id))
                        continue
                    }
                } else if let handler = entry.subscription, let options = entry.options,
                    options.accuracy.map({ location.horizontalAccuracy <= $0.horizontalAccuracy }) ?? true
                {
                    notified.append((handler, entry.id))
                    entry.delivered += 1
                    if let maximum = options.maximumUpdates, entry.delivered >= maximum {
                        exhausted.append((handler, entry.id))
                        continue
                    }
                }
                kept.append(entry)
            }
            entries = kept
        }
        let achieved = AccuracyLevel.achieved(horizontalAccuracy: location.horizontalAccuracy, age: .zero)
        for (handler, id) in completed {
            handler(LocationResult(status: .success, location: location, age: .zero, achievedAccuracy: achieved, requestID: id))
        }
        let update = LocationUpdate(location: location, age: .zero, achievedAccuracy: achieved)
        for (handler, id) in notified { handler(id, .location(update)) }
        for (handler, id) in exhausted { handler(id, .ended(.maximumUpdatesReached)) }
        powerDownIfIdle()
    }

    private func powerIfNeeded() {
        let start = lock.withLock { () -> Bool in
            guard !sourceOn, !entries.isEmpty else { return false }
            sourceOn = true
            starts += 1
            return true
        }
        if start {
            source.start(mode: .best, events: SourceEventSink { [weak self] event in
                if case .location(let location, _) = event { self?.receive(location) }
            })
        }
    }

    private func powerDownIfIdle() {
        let stop = lock.withLock { () -> Bool in
            guard sourceOn, entries.isEmpty else { return false }
            sourceOn = false
            stops += 1
            return true
        }
        if stop { source.stop() }
    }

    /// Waits until every timer task that the clock has woken has finished its work.
    func settle() async {
        guard clock is ManualClock else { return }  // on a real clock, timers fire by themselves
        for _ in 0..<1_000_000 {
            let (started, finished) = timers.withLockedValue { ($0.started, $0.finished) }
            if finished == started || pendingSleepers() == started - finished { return }
            await Task.yield()
        }
    }

    /// Timer tasks still asleep, when the clock can tell (the manual clock), else 0.
    private func pendingSleepers() -> Int {
        (clock as? ManualClock)?.sleeperCount ?? 0
    }

    func nextWakeup() async -> Int64? { nil }
    func cancelledCount() async -> Int { lock.withLock { cancelled } }
    func pendingCount() async -> Int { lock.withLock { entries.count } }
    func sourceCounters() async -> (starts: Int, stops: Int, modeChanges: Int) { lock.withLock { (starts, stops, 0) } }
}
