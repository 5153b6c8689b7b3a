import LocationEngine

/// A transition a design reported for one fence, on the run's timeline.
public struct ReportedTransition: Sendable, Hashable {
    /// What was reported.
    public enum Kind: Sendable, Hashable {
        /// The first decision, or the first after the state was unknown: inside (`true`) or outside.
        case determined(inside: Bool)
        /// Outside to inside.
        case entered
        /// Inside to outside.
        case exited
        /// Inside for the loitering delay.
        case dwelled
        /// No decision for a while.
        case becameUnknown

        /// The kind of the engine's `transition` (a `determined(unknown)`, which the engine never reports, is
        /// taken as ``becameUnknown``).
        public init(_ transition: GeofenceTransition) {
            switch transition {
            case .determined(.unknown): self = .becameUnknown
            case .determined(let known): self = .determined(inside: known == .inside)
            case .entered: self = .entered
            case .exited: self = .exited
            case .dwelled: self = .dwelled
            case .becameUnknown: self = .becameUnknown
            }
        }
    }

    /// The fence's index.
    public var fence: Int
    /// What was reported.
    public var kind: Kind
    /// When it was delivered, seconds since the start.
    public var seconds: Double
    /// When the design estimated the boundary was crossed, seconds since the start (`nil`: no estimate).
    public var estimatedCrossing: Double?

    /// A transition of `fence` delivered at `seconds`, the crossing estimated at `estimatedCrossing`.
    public init(fence: Int, kind: Kind, seconds: Double, estimatedCrossing: Double? = nil) {
        self.fence = fence
        self.kind = kind
        self.seconds = seconds
        self.estimatedCrossing = estimatedCrossing
    }
}

/// How one reported change of state compares with the truth.
public enum TransitionVerdict: String, Sendable, Hashable, Codable {
    /// It reports a true crossing (the latest one of its direction not yet reported, at most
    /// ``TransitionComparison/earlyTolerance`` after it was delivered).
    case detected
    /// It repeats the direction of the last reported true crossing without the path crossing again.
    case duplicate
    /// No true crossing stands behind it.
    case falseTransition = "false"
}

/// A reported change of state, judged.
public struct JudgedTransition: Sendable, Hashable {
    /// The fence's index.
    public var fence: Int
    /// Into the region (`true`) or out of it.
    public var entering: Bool
    /// When it was delivered, seconds.
    public var seconds: Double
    /// The verdict.
    public var verdict: TransitionVerdict
    /// The true crossing it reports (for ``TransitionVerdict/detected``).
    public var crossing: TrueCrossing?
    /// When the design estimated the crossing, seconds (`nil`: no estimate).
    public var estimatedCrossing: Double?
}

/// A true crossing no report stood for, deeper than the margin.
public struct MissedCrossing: Sendable, Hashable {
    /// The fence's index.
    public var fence: Int
    /// The crossing.
    public var crossing: TrueCrossing
    /// The crossing that ends its excursion (`nil`: it lasted to the end of the run).
    public var next: TrueCrossing?
    /// Whether it ends an excursion whose opening crossing was missed too: the design's state, never changed, is
    /// right again, and only the opening crossing says what the design's fixes missed.
    public var endsMissedExcursion: Bool
}

/// The comparison of one design's reported transitions with the ground truth.
///
/// Each fence's reports are read in order as changes of a believed state, which starts at the true state at the
/// start: `entered` and `exited`, and a `determined` that differs from the belief. A change is **detected** when it
/// reports the latest true crossing of its direction after the last one reported, that happened no later than
/// ``earlyTolerance`` after the delivery (the crossings passed over are **missed**); it is a **duplicate** when the
/// last reported true crossing had its direction (a flip back and forth under jitter re-reports it), and **false**
/// otherwise; an `entered` while inside or an `exited` while outside is a duplicate too. True crossings never
/// reported are **missed**, except those of an excursion shallower than the hysteresis margin (counted apart as
/// **within the margin**: a fix can never confidently see them) and those in the run's last stretch, when the design
/// may still owe them (**pending**: ``pendingGrace`` and the design's latency budget or fix interval).
public struct TransitionComparison: Sendable {
    /// How long before its true crossing a delivery still reports it, seconds: the truth between two one-second
    /// samples is a straight line, the fix's noise is not.
    public static let earlyTolerance = 1.0
    /// True crossings this close to the end of the run are pending, not missed, seconds, for a design that may
    /// wait no longer than its fixes allow; one with a latency budget or a fix interval adds it.
    public static let pendingGrace = 60.0

    /// True crossings, all fences.
    public private(set) var trueCrossings = 0
    /// True crossings reported.
    public private(set) var detected = 0
    /// True crossings not reported (deeper than the margin).
    public private(set) var missed = 0
    /// True crossings not reported, of excursions shallower than the margin.
    public private(set) var withinMargin = 0
    /// True crossings of shallow excursions that were reported anyway.
    public private(set) var withinMarginDetected = 0
    /// True crossings not reported before the end of the run.
    public private(set) var pendingAtEnd = 0
    /// Reports that repeat a transition.
    public private(set) var duplicates = 0
    /// Reports with no crossing behind them.
    public private(set) var falseTransitions = 0
    /// `dwelled` reports.
    public private(set) var dwells = 0
    /// `entered` and `exited` reported together at one fix: a crossing found between two fixes outside.
    public private(set) var crossedBetweenFixes = 0
    /// `becameUnknown` reports.
    public private(set) var unknowns = 0
    /// Delivery minus true crossing of every detected transition, seconds, in report order.
    public private(set) var latencies: [Double] = []
    /// Delivery minus the decidable instant (``TrueCrossing/decidable``) of every detected transition whose crossing
    /// has one, seconds, in report order: the latency a design adds to what refusing false transitions must wait for.
    public private(set) var latenciesFromDecidable: [Double] = []
    /// The same from ``TrueCrossing/decidableAtMedianAccuracy``, seconds, in report order.
    public private(set) var latenciesFromDecidableAtMedianAccuracy: [Double] = []
    /// Estimated minus true crossing of every detected transition that carried an estimate, seconds, in report order.
    public private(set) var estimateErrors: [Double] = []
    /// Every judged change of state.
    public private(set) var judged: [JudgedTransition] = []
    /// The true crossings never reported (missed, within the margin or pending).
    public private(set) var unreported: [(fence: Int, crossing: TrueCrossing)] = []
    /// The true crossings counted as ``missed``, fence by fence, in crossing order.
    public private(set) var missedCrossings: [MissedCrossing] = []

    /// Compares `reports` (any order; each fence's in delivery order) with `truth` (one per fence), excepting
    /// excursions shallower than `margin` metres, for a run that ended at `end` seconds.
    /// - Complexity: O(r log r + c) for r reports and c true crossings.
    /// `waiting`: the seconds the design may take beyond what its fixes allow (a latency budget, a fix
    /// interval), added to ``pendingGrace`` at the end of the run.
    public init(reports: [ReportedTransition], truth: [FenceTruth], margin: Double, end: Double, waiting: Double = 0) {
        var byFence = [[ReportedTransition]](repeating: [], count: truth.count)
        for report in reports where truth.indices.contains(report.fence) { byFence[report.fence].append(report) }
        for (fence, fenceTruth) in truth.enumerated() {
            compare(fence: fence, reports: byFence[fence], truth: fenceTruth, margin: margin, pendingFrom: end - Self.pendingGrace - waiting)
        }
    }

    /// Latency percentile `p` (0…100) of the detected transitions, seconds (nearest rank; `nil` when none: a design
    /// that delivered nothing was not quick).
    public func latency(percentile p: Double) -> Double? { Self.percentile(p, of: latencies) }

    /// Percentile `p` (0…100) of the latencies from the decidable instant, seconds (nearest rank; `nil` when none).
    public func latencyFromDecidable(percentile p: Double) -> Double? { Self.percentile(p, of: latenciesFromDecidable) }

    /// Percentile `p` (0…100) of the latencies from the decidable instant at the median accuracy's margin, seconds
    /// (nearest rank; `nil` when none).
    public func latencyFromDecidableAtMedianAccuracy(percentile p: Double) -> Double? {
        Self.percentile(p, of: latenciesFromDecidableAtMedianAccuracy)
    }

    /// Percentile `p` (0…100) of the estimates' absolute errors, seconds (nearest rank; `nil` when none).
    public func estimateError(percentile p: Double) -> Double? { Self.percentile(p, of: estimateErrors.map(abs)) }

    static func percentile(_ p: Double, of values: [Double]) -> Double? {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return nil }
        let rank = Int((Double(sorted.count) * p / 100).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }

    private mutating func compare(fence: Int, reports: [ReportedTransition], truth: FenceTruth, margin: Double, pendingFrom: Double) {
        let crossings = truth.crossings
        trueCrossings += crossings.count
        /// Whether crossing `j` begins or ends an excursion shallower than the margin.
        func isShallow(_ j: Int) -> Bool {
            crossings[j].excursionDepth < margin || (j > 0 && crossings[j - 1].excursionDepth < margin)
        }
        var lastMissed: (index: Int, closes: Bool)?
        func passOver(_ j: Int) {
            unreported.append((fence, crossings[j]))
            if crossings[j].seconds > pendingFrom {
                pendingAtEnd += 1
            } else if isShallow(j) {
                withinMargin += 1
            } else {
                missed += 1
                // The crossing just before was missed too and opened the excursion this one closes.
                let closes = lastMissed.map { $0.index == j - 1 && !$0.closes } ?? false
                lastMissed = (j, closes)
                missedCrossings.append(
                    MissedCrossing(fence: fence, crossing: crossings[j], next: j + 1 < crossings.count ? crossings[j + 1] : nil, endsMissedExcursion: closes))
            }
        }
        var belief = truth.startsInside
        var next = 0
        var lastReported: Bool?
        var enteredAt: Double?
        for report in reports {
            if report.kind == .exited, enteredAt == report.seconds { crossedBetweenFixes += 1 }
            enteredAt = report.kind == .entered ? report.seconds : nil
            let entering: Bool
            switch report.kind {
            case .dwelled:
                dwells += 1
                continue
            case .becameUnknown:
                unknowns += 1
                continue
            case .determined(let inside):
                guard inside != belief else { continue }
                entering = inside
            case .entered, .exited:
                entering = report.kind == .entered
                guard entering != belief else {
                    duplicates += 1
                    judged.append(JudgedTransition(fence: fence, entering: entering, seconds: report.seconds, verdict: .duplicate))
                    continue
                }
            }
            belief = entering
            let due = report.seconds + Self.earlyTolerance
            var match: Int?
            var j = next
            while j < crossings.count, crossings[j].seconds <= due {
                if crossings[j].entering == entering { match = j }
                j += 1
            }
            if let match {
                for skipped in next..<match { passOver(skipped) }
                next = match + 1
                detected += 1
                if isShallow(match) { withinMarginDetected += 1 }
                lastReported = entering
                latencies.append(report.seconds - crossings[match].seconds)
                if let decidable = crossings[match].decidable { latenciesFromDecidable.append(report.seconds - decidable) }
                if let decidable = crossings[match].decidableAtMedianAccuracy {
                    latenciesFromDecidableAtMedianAccuracy.append(report.seconds - decidable)
                }
                if let estimate = report.estimatedCrossing { estimateErrors.append(estimate - crossings[match].seconds) }
                judged.append(JudgedTransition(fence: fence, entering: entering, seconds: report.seconds, verdict: .detected, crossing: crossings[match], estimatedCrossing: report.estimatedCrossing))
            } else if lastReported == entering {
                duplicates += 1
                judged.append(JudgedTransition(fence: fence, entering: entering, seconds: report.seconds, verdict: .duplicate))
            } else {
                falseTransitions += 1
                judged.append(JudgedTransition(fence: fence, entering: entering, seconds: report.seconds, verdict: .falseTransition))
            }
        }
        for j in next..<crossings.count { passOver(j) }
    }
}
