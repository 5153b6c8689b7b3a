import Algorithms
import Atomics
@_spi(Internals) import LocationEngine
import LocationEngineTestKit
import LocbenchModel
import NIOConcurrencyHelpers

/// Everything locbench knows about each request, and the invariant checks made as results arrive:
/// every run is checked, so a benchmark figure never comes from a run that broke the engine's promises.
///
/// The exactly-once and outcome checks are the test kit's ``RequestLedger`` (the engine's own load
/// tests use the same one), reading what each request asked for from the plan; this adds what only a
/// benchmark measures: fix-to-delivery latency, timeout lateness, the power demand of each request
/// and the check of timeouts against the fixes that arrived.
///
/// Handlers run on the engine's executor, and what a handler costs is charged to every timeout behind
/// it: a million one-shots timing out within a second leave the engine about a microsecond each. So
/// a handler only notes what it saw and when, in one ordered log (a lock, a clock read, an append);
/// the driver applies the log to the checks between its batches, a slice at a time, in the order the
/// log was written — submissions, cancels, fixes, authorization changes and endings alike — so every
/// check sees what it would have seen at the moment of the event.
final class Ledger: @unchecked Sendable {  // `log` is behind `logLock`; everything else behind `checkLock`.
    typealias Flags = LedgerRecord.Flags

    /// One thing the ledger was told, stamped on the run's timeline.
    private enum Entry {
        case authorization(AuthorizationState, at: Int64)
        /// The plan's request `Int` was submitted (its ID is known once the service returns it).
        case submitted(Int, at: Int64)
        case issued(Flags, Int, at: Int64)
        case violation(String)
        case fixLeftSource(at: Int64)
        case oneShotEnded(LocationResult, at: Int64)
        case subscriptionEvent(RequestID, SubscriptionEvent, at: Int64)
    }

    let plan: WorkloadPlan
    private let now: @Sendable () -> Int64

    private let logLock = NIOLock()
    private var log: [Entry] = []

    private let checkLock = NIOLock()
    /// The log's other buffer: the two swap, so neither grows again once it has held a busy stretch.
    private var applying: [Entry] = []
    /// How much of `applying` has been applied.
    private var applied = 0
    private var requests: RequestLedger<WorkloadPlan>
    /// When the latest fix left the source (for fix-to-delivery latency).
    private var latestFixAt: Int64 = -1
    /// One-shots that succeeded from the engine's cache when they were made: no fix arrived for them,
    /// so they have no delivery delay.
    private var answeredFromCache = 0
    private var latency = LatencyRecorder()
    private var lateness = LatencyRecorder()
    /// Submission → success of the one-shots that waited for a fix, by accuracy level (city … room), and
    /// of those with a custom accuracy last.
    private var timeToAnswer = Array(repeating: LatencyRecorder(), count: WorkloadPlan.levels.count + 1)
    /// When full, unrestricted access began and ended, on the run's timeline (for the fix-based check).
    private var authorizationTimeline: [(at: Int64, fullAccess: Bool)]
    private var authorizationChanges = 0

    /// - Parameter now: the run's timeline (the virtual clock, or the wall clock since the run began);
    ///   latency and lateness are differences of its readings.
    init(plan: WorkloadPlan, now: @escaping @Sendable () -> Int64, initialAuthorization: AuthorizationState = .authorizedAlways) {
        self.plan = plan
        self.requests = RequestLedger(expectations: plan, capacity: plan.requestCount, authorization: initialAuthorization)
        self.authorizationTimeline = [(0, initialAuthorization.isAuthorized && initialAuthorization.accuracy == .full)]
        self.now = now
        // Room for a busy stretch between two catch-ups, reserved before the run measures its heap.
        let reserved = min(plan.requestCount, 1 << 15)
        log.reserveCapacity(reserved)
        applying.reserveCapacity(reserved)
    }

    /// The number of the engine whose IDs the run's requests get (``RequestID/engine``), learned from the
    /// first ID a service hands out: a process's engines number their IDs apart.
    private let engine = ManagedAtomic<UInt64>(0)

    /// Requests are numbered from 0 in the plan; the service numbers them from 1 in submission order.
    private func id(_ request: Int) -> RequestID {
        RequestID(engine: engine.load(ordering: .relaxed), sequence: UInt64(request + 1))
    }

    private func note(_ entry: Entry) {
        logLock.withLock { log.append(entry) }
    }

    // MARK: Engine side

    /// The engine's authorization picture changed (its `onAuthorizationChange` callback).
    func authorizationChanged(_ state: AuthorizationState) { note(.authorization(state, at: now())) }

    // MARK: Driver side

    func submitted(_ request: Int, at time: Int64) { note(.submitted(request, at: time)) }

    /// Checks the ID a service gave `request`. Results are matched to requests by ID (number `request + 1`:
    /// locbench is the only submitter and both designs number requests from 1 in submission order),
    /// so a different ID would make every later check meaningless. The first one tells which engine numbers them.
    func assigned(_ id: RequestID, to request: Int) {
        if request == 0 { engine.store(id.engine, ordering: .relaxed) }
        guard id != self.id(request) else { return }
        note(.violation("request #\(request + 1) was given ID \(id): results could not be matched to requests"))
    }

    func issued(_ flag: Flags, for request: Int) { note(.issued(flag, request, at: now())) }

    func fixLeftSource() { note(.fixLeftSource(at: now())) }

    // MARK: Handler side

    func oneShotEnded(_ result: LocationResult) { note(.oneShotEnded(result, at: now())) }

    func subscriptionEvent(_ id: RequestID, _ event: SubscriptionEvent) { note(.subscriptionEvent(id, event, at: now())) }

    // MARK: Checks

    /// Applies what was logged since the last call to the checks, in order, a slice at a time: between
    /// slices it yields, so that the checks never hold one of the executor's few threads for long while
    /// the engine and its timer need one. Entries logged meanwhile wait for the next call.
    func catchUp() async {
        var more = checkLock.withLock {
            takeLogIfApplied()
            return applyTaken(atMost: Self.slice)
        }
        while more {
            await Task.yield()
            more = checkLock.withLock { applyTaken(atMost: Self.slice) }
        }
    }

    /// Entries applied between two yields of ``catchUp()`` (a few hundred microseconds of checks).
    private static var slice: Int { 256 }

    /// Once the log taken last is applied, takes what was logged since (the two buffers swap).
    /// Called with `checkLock` held.
    private func takeLogIfApplied() {
        guard applied == applying.count else { return }
        applying.removeAll(keepingCapacity: true)
        applied = 0
        logLock.withLock { swap(&log, &applying) }
    }

    /// Applies up to `limit` entries of the log taken last; returns whether any remain. Called with
    /// `checkLock` held.
    private func applyTaken(atMost limit: Int = .max) -> Bool {
        let end = applied + min(limit, applying.count - applied)
        while applied < end {
            apply(applying[applied])
            applied += 1
        }
        return applied < applying.count
    }

    /// Applies everything logged so far: the rest of a catch-up in progress, then the log since.
    /// Called with `checkLock` held.
    private func applyWholeLog() {
        _ = applyTaken()
        takeLogIfApplied()
        _ = applyTaken()
    }

    /// Called with `checkLock` held.
    private func apply(_ entry: Entry) {
        switch entry {
        case .authorization(let state, let time):
            authorizationChanges += 1
            requests.authorizationChanged(state)
            authorizationTimeline.append((time, state.isAuthorized && state.accuracy == .full))
        case .submitted(let request, let time):
            requests.submitted(id(request), at: time)
        case .issued(let flag, let request, let time):
            requests.issued(flag, for: id(request), at: time)
        case .violation(let message):
            requests.violation(message)
        case .fixLeftSource(let time):
            latestFixAt = time
        case .oneShotEnded(let result, let time):
            oneShotEnded(result, at: time)
        case .subscriptionEvent(let id, let event, let time):
            requests.subscriptionEvent(id, event, at: time)
        }
    }

    /// Called with `checkLock` held.
    private func oneShotEnded(_ result: LocationResult, at time: Int64) {
        let request = Int(result.requestID.sequence) - 1
        guard let outcome = requests.oneShotEnded(result, at: time), requests.records.indices.contains(request) else { return }
        let submittedAt = requests.records[request].submittedAt
        switch outcome {
        case .succeeded:
            // A delivery delay exists only for a request that was waiting when the latest fix arrived.
            if submittedAt <= latestFixAt {
                latency.record(nanoseconds: time - latestFixAt)
            } else {
                answeredFromCache += 1
            }
            if time > submittedAt {
                timeToAnswer[plan.levelIndex(of: request) ?? WorkloadPlan.levels.count].record(nanoseconds: time - submittedAt)
            }
        case .timedOut:
            guard let timeout = plan.timeout(of: request) else { return }
            lateness.record(nanoseconds: time - (submittedAt + timeout.saturatingNanoseconds))
        default:
            break
        }
    }

    /// Whether access was full and unrestricted from `start` to `end`. Called with the lock held.
    private func hadFullAccess(from start: Int64, to end: Int64) -> Bool {
        let first = authorizationTimeline.partitioningIndex { $0.at > start }
        guard first > 0, authorizationTimeline[first - 1].fullAccess else { return false }
        return first == authorizationTimeline.count || authorizationTimeline[first].at > end
    }

    // MARK: After the run

    /// What the ledger saw, once the log is applied.
    struct Summary {
        var violations: [String]
        var violationCount: Int
        var outcomes: [String: Int]
        var subscriptionUpdates: Int
        var latency: LatencySummary
        var latencyBuckets: [(upperMicroseconds: UInt64, count: UInt64)]
        var lateness: LatencySummary
        var latenessBuckets: [(upperMicroseconds: UInt64, count: UInt64)]
        /// Submission → success of the one-shots that waited, by level name (and `custom`).
        var timeToAnswer: [String: LatencySummary]
        var answeredFromCache: Int
        var authorizationChanges: Int
        var coarseDeliveriesChecked: Int
    }

    /// Requests submitted that have neither ended nor been cancelled (the wind-down force-completes them).
    func unendedRequests(submittedBefore count: Int) -> [Int] {
        checkLock.withLock {
            applyWholeLog()
            return (0..<count).filter { requests.records[$0].ends == 0 && !requests.records[$0].flags.contains(.cancelIssued) }
        }
    }

    /// What each submitted request needed of the source: from its submission until it ended, was
    /// cancelled, or (never ending) `end`, in the mode its accuracy asks for. Passive subscriptions
    /// need nothing, and neither does a request that ended as it was made (answered from the cache):
    /// most one-shots of a long run, left out so the list stays small.
    func demands(until end: Int64) -> [Demand] {
        checkLock.withLock {
            applyWholeLog()
            var demands: [Demand] = []
            for request in requests.records.indices where requests.records[request].flags.contains(.submitted) {
                guard let mode = plan.powerDemand(of: request) else { continue }
                let record = requests.records[request]
                let until = record.ends > 0 ? record.endedAt : record.flags.contains(.cancelIssued) ? record.cancelledAt : end
                guard until > record.submittedAt else { continue }
                demands.append(Demand(TimelineInterval(start: record.submittedAt, end: until), level: mode.rawValue))
            }
            return demands
        }
    }

    /// Final checks: every request either ended once or was cancelled; given the engine's statistics,
    /// the engine counted exactly what was delivered (else, for the naive design, the number it
    /// cancelled agrees); no timed-out request missed a fix that satisfied it (virtual clock only).
    /// Returns everything the ledger counted.
    func finish(engine statistics: SchedulerStatistics?, cancelled: Int, fixes: [RecordedFix], checkAgainstFixes: Bool) -> Summary {
        checkLock.withLock {
            applyWholeLog()
            let summary = requests.finish(engineStatistics: statistics)
            if statistics == nil && summary.cancelled != cancelled {
                requests.violation("\(summary.cancelled) requests never ended, but the service cancelled \(cancelled)")
            }
            if checkAgainstFixes { checkTimeoutsAgainstFixes(fixes) }
            var outcomes: [String: Int] = [:]
            for (outcome, value) in summary.outcomes { outcomes["\(outcome)"] = value }
            outcomes["cancelled"] = summary.cancelled
            return Summary(
                violations: requests.violations, violationCount: requests.violationCount, outcomes: outcomes,
                subscriptionUpdates: summary.subscriptionUpdates,
                latency: latency.summary, latencyBuckets: latency.buckets, lateness: lateness.summary, latenessBuckets: lateness.buckets,
                timeToAnswer: Dictionary(
                    uniqueKeysWithValues: timeToAnswer.enumerated().compactMap { index, recorder in
                        recorder.count == 0 ? nil : (index < WorkloadPlan.levels.count ? "\(WorkloadPlan.levels[index])" : "custom", recorder.summary)
                    }),
                answeredFromCache: answeredFromCache, authorizationChanges: authorizationChanges,
                coarseDeliveriesChecked: requests.coarseDeliveriesChecked)
        }
    }

    /// A timed-out one-shot must not have seen, strictly between submission and deadline, a fix that
    /// satisfied it — when it waited under full, unrestricted access throughout (fixes are coarsened
    /// and throttled under reduced accuracy, and dropped without access). Called with the lock held.
    private func checkTimeoutsAgainstFixes(_ fixes: [RecordedFix]) {
        guard !fixes.isEmpty else { return }
        for request in requests.records.indices where requests.records[request].outcome == .timedOut {
            let accuracy = plan.accuracy(of: request)
            guard let timeout = plan.timeout(of: request) else { continue }
            let start = requests.records[request].submittedAt
            let deadline = start + timeout.saturatingNanoseconds
            guard hadFullAccess(from: start, to: deadline) else { continue }
            var index = fixes.partitioningIndex { $0.at > start }
            while index < fixes.count, fixes[index].at < deadline {
                if fixes[index].horizontalAccuracy <= accuracy.horizontalAccuracy {
                    let id = id(request)
                    requests.violation(
                        "request \(id): timed out although a ±\(fixes[index].horizontalAccuracy) m fix arrived at "
                            + "\(RequestLedger<WorkloadPlan>.seconds(fixes[index].at))\n  history: \(requests.history(id))")
                    break
                }
                index += 1
            }
        }
    }
}
