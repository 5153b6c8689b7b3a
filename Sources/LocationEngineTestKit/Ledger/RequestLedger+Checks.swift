@_spi(Internals) import LocationEngine

extension RequestLedger {
    // MARK: What the engine delivered

    /// Records a one-shot's final result, delivered at `time`, and checks it against what the request
    /// asked for. Returns its outcome, or `nil` when it was not the request's first ending.
    @discardableResult
    public mutating func oneShotEnded(_ result: LocationResult, at time: Int64) -> Outcome? {
        let id = result.requestID
        guard let index = recordIndex(id) else { return nil }
        records[index].ends &+= 1
        records[index].endedAt = time
        if records[index].ends > 1 {
            fail(id, "ended \(records[index].ends) times; latest \(result.status)")
            return nil
        }
        checkCoarse(result.location, id)
        let outcome = check(result, index, at: time)
        records[index].outcome = outcome
        counts[Int(outcome.rawValue)] += 1
        return outcome
    }

    /// Records a subscription event delivered at `time`, checking updates against the filters and the
    /// end against what was due.
    public mutating func subscriptionEvent(_ id: RequestID, _ event: SubscriptionEvent, at time: Int64) {
        guard let index = recordIndex(id) else { return }
        if records[index].ends > 0 { return fail(id, "received \(event) after it ended") }
        let options: SubscriptionOptions? =
            if case .subscription(let options) = expectations.expectation(of: id) { options } else { nil }
        switch event {
        case .location(let update):
            records[index].updates += 1
            subscriptionUpdates += 1
            checkCoarse(update.location, id)
            if let accuracy = options?.accuracy,
                !accuracy.isSatisfied(horizontalAccuracy: update.location.horizontalAccuracy, age: update.age)
            {
                fail(id, "received ±\(update.location.horizontalAccuracy) m aged \(update.age) through an accuracy filter of \(accuracy)")
            }
            if let maximum = options?.maximumUpdates, records[index].updates > maximum {
                fail(id, "received update \(records[index].updates) of at most \(maximum)")
            }
        case .heading(let update):
            records[index].updates += 1
            subscriptionUpdates += 1
            if reducedAccuracy { fail(id, "received a course under reduced accuracy: \(update.course)°") }
        case .sourceError:
            break
        case .ended(let end):
            records[index].ends = 1
            records[index].endedAt = time
            records[index].outcome = .ended
            counts[Int(Outcome.ended.rawValue)] += 1
            if end == .forceCompleted && !records[index].flags.contains(.forceCompleteIssued) {
                fail(id, "force-completed though nobody asked")
            }
            if end == .accuracyReduced && !reducedAccuracy { fail(id, "ended with 'accuracy reduced' under full accuracy") }
            if case .unauthorized(let failure) = end, authorized { fail(id, "ended unauthorized (\(failure)) while access was granted") }
        }
    }

    /// Checks a one-shot's result against its request; returns its outcome.
    private mutating func check(_ result: LocationResult, _ index: Int, at time: Int64) -> Outcome {
        let id = result.requestID
        let record = records[index]
        let asked: (accuracy: LocationAccuracy, timeout: Duration?)? =
            if case .oneShot(let accuracy, let timeout) = expectations.expectation(of: id) { (accuracy, timeout) } else { nil }
        switch result.status {
        case .success:
            guard let location = result.location, let age = result.age else {
                fail(id, "succeeded without a fix")
                return .succeeded
            }
            if let accuracy = asked?.accuracy, !accuracy.isSatisfied(horizontalAccuracy: location.horizontalAccuracy, age: age) {
                fail(id, "succeeded with ±\(location.horizontalAccuracy) m aged \(age), which fails \(accuracy)")
            }
            return .succeeded
        case .timedOut:
            guard let asked else { return .timedOut }
            guard let timeout = asked.timeout else {
                fail(id, "timed out without a timeout")
                return .timedOut
            }
            let deadline = record.submittedAt + timeout.saturatingNanoseconds
            if record.flags.contains(.submitted) && time < deadline {
                fail(id, "timed out at \(Self.seconds(time)), before its deadline \(Self.seconds(deadline))")
            }
            return .timedOut
        case .forceCompleted:
            if !record.flags.contains(.forceCompleteIssued) { fail(id, "force-completed though nobody asked") }
            return .forceCompleted
        case .unauthorized(let failure):
            if authorized { fail(id, "ended unauthorized (\(failure)) while access was granted") }
            return .unauthorized
        case .accuracyReduced:
            if !reducedAccuracy { fail(id, "ended with 'accuracy reduced' under full accuracy") }
            return .accuracyReduced
        default:
            return .failed
        }
    }

    /// Under reduced accuracy nothing finer than the coarsening grid may be delivered.
    private mutating func checkCoarse(_ location: Location?, _ id: RequestID) {
        guard reducedAccuracy, let location else { return }
        coarseDeliveriesChecked += 1
        guard !coarseness.isCoarse(location) else { return }
        fail(id, "received a precise fix under reduced accuracy: \(location)")
    }

    // MARK: After the run

    /// Final checks, once the engine is idle: every request submitted either ended once or was
    /// cancelled, every ending belongs to a request the owner submitted, and — given the engine's
    /// statistics — the engine counted exactly what it delivered: successes, timeouts,
    /// force-completions, other failures, subscription ends and cancellations.
    public mutating func finish(engineStatistics statistics: SchedulerStatistics?) -> Summary {
        var cancelled = 0
        for index in records.indices {
            let id = RequestID(engine: engine ?? 0, sequence: UInt64(index + 1))
            let record = records[index]
            if record.ends > 0 && !record.flags.contains(.submitted) { fail(id, "received an ending but was never submitted") }
            guard record.ends == 0, record.flags.contains(.submitted) else { continue }
            cancelled += 1
            if !record.flags.contains(.cancelIssued) { fail(id, "never ended and was never cancelled") }
        }
        var outcomes: [Outcome: Int] = [:]
        for outcome in Outcome.allCases where counts[Int(outcome.rawValue)] > 0 { outcomes[outcome] = counts[Int(outcome.rawValue)] }
        if let statistics { compare(statistics, outcomes: outcomes, cancelled: cancelled) }
        return Summary(
            violations: violations, violationCount: violationCount, outcomes: outcomes, cancelled: cancelled,
            subscriptionUpdates: subscriptionUpdates)
    }

    /// The engine's counters must say exactly what was delivered.
    private mutating func compare(_ statistics: SchedulerStatistics, outcomes: [Outcome: Int], cancelled: Int) {
        let failed = (outcomes[.failed] ?? 0) + (outcomes[.unauthorized] ?? 0) + (outcomes[.accuracyReduced] ?? 0)
        let pairs: [(String, counted: Int, delivered: Int)] = [
            ("successes", statistics.oneShotsSucceeded, outcomes[.succeeded] ?? 0),
            ("timeouts", statistics.oneShotsTimedOut, outcomes[.timedOut] ?? 0),
            ("force-completions", statistics.oneShotsForceCompleted, outcomes[.forceCompleted] ?? 0),
            ("other one-shot endings", statistics.oneShotsFailed, failed),
            ("subscription ends", statistics.subscriptionsEnded, outcomes[.ended] ?? 0),
            ("cancellations", statistics.oneShotsCancelled + statistics.subscriptionsCancelled, cancelled),
        ]
        for (what, counted, delivered) in pairs where counted != delivered {
            violation("the engine counted \(counted) \(what), but \(delivered) were delivered")
        }
    }

    /// Records a violation with the request's history.
    private mutating func fail(_ id: RequestID, _ message: String) {
        violation("request \(id): \(message)\n  history: \(history(id))")
    }

    /// What the ledger knows of `id`, for a violation's message.
    public func history(_ id: RequestID) -> String {
        let index = Int(truncatingIfNeeded: id.sequence &- 1)
        guard records.indices.contains(index) else { return "unknown request" }
        let record = records[index]
        let what =
            switch expectations.expectation(of: id) {
            case .oneShot(let accuracy, let timeout)?: "one-shot \(accuracy), timeout \(timeout.map { "\($0)" } ?? "none")"
            case .subscription(let options)?: "subscription \(options)"
            case nil: "request"
            }
        var flags: [String] = []
        if record.flags.contains(.cancelIssued) { flags.append("cancel issued") }
        if record.flags.contains(.forceCompleteIssued) { flags.append("force-complete issued") }
        return "\(what); submitted at \(Self.seconds(record.submittedAt)); \(flags.joined(separator: ", ")); "
            + "ended \(record.ends)× (\(record.outcome)) at \(Self.seconds(record.endedAt)); \(record.updates) updates"
    }

    /// Nanoseconds as seconds with millisecond precision, for messages.
    public static func seconds(_ nanoseconds: Int64) -> String {
        "\((Double(nanoseconds) / 1e6).rounded() / 1000) s"
    }
}
