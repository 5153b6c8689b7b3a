import Algorithms
import LocationEngine
import LocbenchModel
import NIOConcurrencyHelpers

/// Everything locbench knows about each request, and the invariant checks made as results arrive:
/// every run is checked, so a benchmark figure never comes from a run that broke the engine's promises.
///
/// Records are 32 bytes in one array indexed by request, behind one lock: handlers run on the
/// engine's executor while the driver submits from another task.
final class Ledger: @unchecked Sendable {  // All mutable state is behind `lock`.
    struct Record {
        var submittedAt: Int64 = 0
        var endedAt: Int64 = 0
        /// When a cancel was issued for it (the end of its need for the source if it had not ended).
        var cancelledAt: Int64 = 0
        var updates: Int32 = 0
        var ends: UInt8 = 0
        var flags: Flags = []
        var status: Outcome = .pending
    }

    struct Flags: OptionSet {
        let rawValue: UInt8
        static let submitted = Flags(rawValue: 1)
        static let cancelIssued = Flags(rawValue: 2)
        static let forceCompleteIssued = Flags(rawValue: 4)
    }

    enum Outcome: UInt8 { case pending, succeeded, timedOut, forceCompleted, failed, ended, unauthorized, accuracyReduced }

    let plan: WorkloadPlan
    private let lock = NIOLock()
    private var records: [Record]
    private var violations: [String] = []
    private var violationCount = 0
    private let now: @Sendable () -> Int64
    private let wallNow: @Sendable () -> Int64
    /// Wall time at which the latest fix left the source (for fix-to-delivery latency), and the same
    /// instant on the run's timeline.
    private var latestFixWallTime: Int64 = 0
    private var latestFixAt: Int64 = -1
    /// One-shots that succeeded from the engine's cache when they were made: no fix arrived for them,
    /// so they have no delivery delay.
    private var answeredFromCache = 0
    private var latency = LatencyRecorder()
    private var lateness = LatencyRecorder()
    private var counts: [Outcome: Int] = [:]
    private var subscriptionUpdates = 0
    /// Whether the engine works under reduced accuracy now (from its change callback, which runs on
    /// the engine's executor in order with deliveries): every delivery must then be coarse.
    private var reducedAccuracy = false
    /// Whether access is granted now: no request may then end as unauthorized.
    private var authorized = true
    private let coarseness = ReducedAccuracyPolicy()
    /// When full, unrestricted access began and ended, on the run's timeline (for the fix-based check).
    private var authorizationTimeline: [(at: Int64, fullAccess: Bool)]
    private var authorizationChanges = 0
    private var coarseDeliveriesChecked = 0

    init(
        plan: WorkloadPlan, now: @escaping @Sendable () -> Int64, wallNow: @escaping @Sendable () -> Int64,
        initialAuthorization: AuthorizationState = .authorizedAlways
    ) {
        self.plan = plan
        self.reducedAccuracy = initialAuthorization.isAuthorized && initialAuthorization.accuracy == .reduced
        self.authorized = initialAuthorization.isAuthorized
        self.authorizationTimeline = [(0, initialAuthorization.isAuthorized && initialAuthorization.accuracy == .full)]
        self.records = Array(repeating: Record(), count: plan.requestCount)
        self.now = now
        self.wallNow = wallNow
    }

    // MARK: Engine side

    /// The engine's authorization picture changed (its `onAuthorizationChange` callback).
    func authorizationChanged(_ state: AuthorizationState) {
        let time = now()
        lock.withLock {
            authorizationChanges += 1
            reducedAccuracy = state.isAuthorized && state.accuracy == .reduced
            authorized = state.isAuthorized
            authorizationTimeline.append((time, state.isAuthorized && state.accuracy == .full))
        }
    }

    /// Under reduced accuracy nothing finer than the grid may be delivered. Called with the lock held.
    private func checkCoarse(_ location: Location?, request: Int) {
        guard reducedAccuracy, let location else { return }
        coarseDeliveriesChecked += 1
        if !coarseness.isCoarse(location) { fail(request, "received a precise fix under reduced accuracy: \(location)") }
    }

    // MARK: Driver side

    func submitted(_ request: Int, at time: Int64) {
        lock.withLock {
            records[request].submittedAt = time
            records[request].flags.insert(.submitted)
        }
    }

    /// Checks the ID a service gave `request`. Results are matched to requests by ID (`request + 1`:
    /// locbench is the only submitter and both designs number requests from 1 in submission order),
    /// so a different ID would make every later check meaningless.
    func assigned(_ id: RequestID, to request: Int) {
        guard id.rawValue != UInt64(request + 1) else { return }
        lock.withLock { fail(request, "was given ID \(id), not #\(request + 1): results could not be matched to requests") }
    }

    func issued(_ flag: Flags, for request: Int) {
        let time = now()
        lock.withLock {
            if flag == .cancelIssued && !records[request].flags.contains(.cancelIssued) { records[request].cancelledAt = time }
            records[request].flags.insert(flag)
        }
    }

    func fixLeftSource() {
        let time = now()
        let wall = wallNow()
        lock.withLock {
            latestFixWallTime = wall
            latestFixAt = time
        }
    }

    // MARK: Handler side

    func oneShotEnded(_ result: LocationResult) {
        let time = now()
        let wall = wallNow()
        let request = Int(result.requestID.rawValue) - 1
        lock.withLock {
            guard records.indices.contains(request) else {
                return fail(request, "a result for an ID locbench never submitted (\(result.requestID))")
            }
            records[request].ends &+= 1
            records[request].endedAt = time
            if records[request].ends > 1 { return fail(request, "ended \(records[request].ends) times; latest \(result.status)") }
            checkCoarse(result.location, request: request)
            let outcome = check(result, request: request, at: time, wall: wall)
            records[request].status = outcome
            counts[outcome, default: 0] += 1
        }
    }

    func subscriptionEvent(_ id: RequestID, _ event: SubscriptionEvent) {
        let request = Int(id.rawValue) - 1
        lock.withLock {
            guard records.indices.contains(request) else { return fail(request, "an event for an ID locbench never submitted (\(id))") }
            if records[request].ends > 0 { return fail(request, "received \(event) after it ended") }
            switch event {
            case .location(let update):
                records[request].updates += 1
                subscriptionUpdates += 1
                checkCoarse(update.location, request: request)
                let options = plan.options(of: request)
                if let accuracy = options.accuracy,
                    !accuracy.isSatisfied(horizontalAccuracy: update.location.horizontalAccuracy, age: update.age)
                {
                    fail(request, "received ±\(update.location.horizontalAccuracy) m aged \(update.age) through an accuracy filter of \(accuracy)")
                }
                if let maximum = options.maximumUpdates, records[request].updates > maximum {
                    fail(request, "received update \(records[request].updates) of at most \(maximum)")
                }
            case .heading(let update):
                records[request].updates += 1
                subscriptionUpdates += 1
                if reducedAccuracy { fail(request, "received a course under reduced accuracy: \(update.course)°") }
            case .sourceError:
                break
            case .ended(let end):
                records[request].ends = 1
                records[request].endedAt = now()
                records[request].status = .ended
                counts[.ended, default: 0] += 1
                if end == .forceCompleted && !records[request].flags.contains(.forceCompleteIssued) {
                    fail(request, "force-completed though nobody asked")
                }
                if end == .accuracyReduced && !reducedAccuracy { fail(request, "ended with 'accuracy reduced' under full accuracy") }
                if case .unauthorized(let failure) = end, authorized { fail(request, "ended unauthorized (\(failure)) while access was granted") }
            }
        }
    }

    /// Checks a one-shot's result against its request; returns its outcome. Called with the lock held.
    private func check(_ result: LocationResult, request: Int, at time: Int64, wall: Int64) -> Outcome {
        let accuracy = plan.accuracy(of: request)
        let record = records[request]
        switch result.status {
        case .success:
            guard let location = result.location, let age = result.age else {
                fail(request, "succeeded without a fix")
                return .succeeded
            }
            if !accuracy.isSatisfied(horizontalAccuracy: location.horizontalAccuracy, age: age) {
                fail(request, "succeeded with ±\(location.horizontalAccuracy) m aged \(age), which fails \(accuracy)")
            }
            // A delivery delay exists only for a request that was waiting when the latest fix arrived.
            if record.submittedAt <= latestFixAt {
                latency.record(nanoseconds: wall - latestFixWallTime)
            } else {
                answeredFromCache += 1
            }
            return .succeeded
        case .timedOut:
            guard let timeout = plan.timeout(of: request) else {
                fail(request, "timed out without a timeout")
                return .timedOut
            }
            let deadline = record.submittedAt + timeout.saturatingNanoseconds
            if time < deadline { fail(request, "timed out at \(Self.seconds(time)), before its deadline \(Self.seconds(deadline))") }
            lateness.record(nanoseconds: time - deadline)
            return .timedOut
        case .forceCompleted:
            if !record.flags.contains(.forceCompleteIssued) { fail(request, "force-completed though nobody asked") }
            return .forceCompleted
        case .unauthorized(let failure):
            if authorized { fail(request, "ended unauthorized (\(failure)) while access was granted") }
            return .unauthorized
        case .accuracyReduced:
            if !reducedAccuracy { fail(request, "ended with 'accuracy reduced' under full accuracy") }
            return .accuracyReduced
        default:
            return .failed
        }
    }

    /// Records a violation with the request's history (the first 20 in full).
    private func fail(_ request: Int, _ message: String) {
        violationCount += 1
        guard violations.count < 20 else { return }
        violations.append("request #\(request + 1): \(message)\n  history: \(history(request))")
    }

    private func history(_ request: Int) -> String {
        guard records.indices.contains(request) else { return "unknown request" }
        let record = records[request]
        let spec = plan.requests[request]
        let what =
            spec.isSubscription
            ? "subscription \(plan.options(of: request))"
            : "one-shot \(plan.accuracy(of: request)), timeout \(plan.timeout(of: request).map { "\($0)" } ?? "none")"
        var flags: [String] = []
        if record.flags.contains(.cancelIssued) { flags.append("cancel issued") }
        if record.flags.contains(.forceCompleteIssued) { flags.append("force-complete issued") }
        return "\(what); submitted at \(Self.seconds(record.submittedAt)); \(flags.joined(separator: ", ")); ended \(record.ends)× (\(record.status)) at \(Self.seconds(record.endedAt)); \(record.updates) updates"
    }

    /// Whether access was full and unrestricted from `start` to `end`. Called with the lock held.
    private func hadFullAccess(from start: Int64, to end: Int64) -> Bool {
        let first = authorizationTimeline.partitioningIndex { $0.at > start }
        guard first > 0, authorizationTimeline[first - 1].fullAccess else { return false }
        return first == authorizationTimeline.count || authorizationTimeline[first].at > end
    }

    static func seconds(_ nanoseconds: Int64) -> String {
        let value = Double(nanoseconds) / 1e9
        return "\((value * 1000).rounded() / 1000) s"
    }

    // MARK: After the run

    /// What the ledger saw, read under its lock.
    struct Summary {
        var violations: [String]
        var violationCount: Int
        var outcomes: [String: Int]
        var subscriptionUpdates: Int
        var latency: LatencySummary
        var latencyBuckets: [(upperMicroseconds: UInt64, count: UInt64)]
        var lateness: LatencySummary
        var latenessBuckets: [(upperMicroseconds: UInt64, count: UInt64)]
        var answeredFromCache: Int
        var authorizationChanges: Int
        var coarseDeliveriesChecked: Int
    }

    /// Requests submitted that have neither ended nor been cancelled (the wind-down force-completes them).
    func unendedRequests(submittedBefore count: Int) -> [Int] {
        lock.withLock {
            (0..<count).filter { records[$0].ends == 0 && !records[$0].flags.contains(.cancelIssued) }
        }
    }

    /// What each submitted request needed of the source: from its submission until it ended, was
    /// cancelled, or (never ending) `end`, in the mode its accuracy asks for. Passive subscriptions
    /// need nothing.
    func demands(until end: Int64) -> [Demand] {
        lock.withLock {
            var demands: [Demand] = []
            demands.reserveCapacity(records.count)
            for request in records.indices where records[request].flags.contains(.submitted) {
                guard let mode = plan.powerDemand(of: request) else { continue }
                let record = records[request]
                let until = record.ends > 0 ? record.endedAt : record.flags.contains(.cancelIssued) ? record.cancelledAt : end
                demands.append(Demand(TimelineInterval(start: record.submittedAt, end: until), level: mode.rawValue))
            }
            return demands
        }
    }

    /// Final checks: every request either ended once or was cancelled (and the engine agrees on how many
    /// were cancelled); no timed-out request missed a fix that satisfied it (virtual clock only). Returns
    /// everything the ledger counted.
    func finish(engineCancelled: Int, fixes: [RecordedFix], checkAgainstFixes: Bool) -> Summary {
        lock.withLock {
            var unended = 0
            for request in records.indices where records[request].ends == 0 {
                unended += 1
                if !records[request].flags.contains(.cancelIssued) { fail(request, "never ended and was never cancelled") }
            }
            if unended != engineCancelled {
                violationCount += 1
                violations.append("\(unended) requests never ended, but the engine cancelled \(engineCancelled)")
            }
            if checkAgainstFixes { checkTimeoutsAgainstFixes(fixes) }
            var outcomes: [String: Int] = [:]
            for (outcome, value) in counts { outcomes["\(outcome)"] = value }
            outcomes["cancelled"] = engineCancelled
            return Summary(
                violations: violations, violationCount: violationCount, outcomes: outcomes, subscriptionUpdates: subscriptionUpdates,
                latency: latency.summary, latencyBuckets: latency.buckets, lateness: lateness.summary, latenessBuckets: lateness.buckets, answeredFromCache: answeredFromCache,
                authorizationChanges: authorizationChanges, coarseDeliveriesChecked: coarseDeliveriesChecked)
        }
    }

    /// A timed-out one-shot must not have seen, strictly between submission and deadline, a fix that
    /// satisfied it — when it waited under full, unrestricted access throughout (fixes are coarsened
    /// and throttled under reduced accuracy, and dropped without access). Called with the lock held.
    private func checkTimeoutsAgainstFixes(_ fixes: [RecordedFix]) {
        guard !fixes.isEmpty else { return }
        for request in records.indices where records[request].status == .timedOut {
            let accuracy = plan.accuracy(of: request)
            guard let timeout = plan.timeout(of: request) else { continue }
            let start = records[request].submittedAt
            let deadline = start + timeout.saturatingNanoseconds
            guard hadFullAccess(from: start, to: deadline) else { continue }
            var index = fixes.partitioningIndex { $0.at > start }
            while index < fixes.count, fixes[index].at < deadline {
                if fixes[index].horizontalAccuracy <= accuracy.horizontalAccuracy {
                    fail(request, "timed out although a ±\(fixes[index].horizontalAccuracy) m fix arrived at \(Self.seconds(fixes[index].at))")
                    break
                }
                index += 1
            }
        }
    }
}
