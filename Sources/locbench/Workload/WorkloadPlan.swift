@_spi(Internals) import LocationEngine
import LocationEngineTestKit
import LocbenchModel

/// When operations arrive (`--arrival`).
enum ArrivalModel: Sendable {
    /// Everything at time zero.
    case burst
    /// Evenly spaced, this many per second.
    case steady(rate: Double)
    /// Bursts and idle gaps: a Poisson process switched on and off (see ``OnOffArrivals``).
    case onOff(OnOffArrivals)
    /// A day of commuting, repeated: short windows at fixed times of day, hours between them (see ``CommuteArrivals``).
    case commute(CommuteArrivals)

    /// How many on periods `operations` arrivals need on average (0 without on periods).
    func expectedOnPeriods(of operations: Int) -> Double {
        if case .onOff(let process) = self { process.expectedOnPeriods(of: operations) } else { 0 }
    }

    /// How long `operations` arrivals take on average, in seconds.
    func expectedSpan(of operations: Int) -> Double {
        switch self {
        case .burst: 0
        case .steady(let rate): Double(operations) / rate
        case .onOff(let process): process.expectedSpan(of: operations)
        case .commute(let process): process.expectedSpan(of: operations)
        }
    }
}

/// The settings a plan is drawn from.
struct WorkloadSettings: Sendable {
    var operations: Int
    var mix: Mix
    var arrival: ArrivalModel
    var timeoutRange: ClosedRange<Duration>
    /// Fraction of one-shots with no timeout.
    var noTimeoutFraction: Double
    var seed: UInt64
}

/// One operation of a workload, at a time on the run's timeline. 16 bytes, so a million fit easily.
struct PlannedOperation: Sendable {
    enum Kind: UInt8, Sendable { case oneShot, subscribe, cancel, forceComplete }
    /// Nanoseconds since the start of the run.
    var at: Int64
    /// The request it makes or acts on (an index into ``WorkloadPlan/requests``).
    var request: Int32
    var kind: Kind
}

/// What one request asks for. 12 bytes; custom accuracies and subscription options live in side tables.
struct RequestSpec: Sendable {
    /// A standard level's raw value, or 255 for a custom accuracy at `extra` in the custom table,
    /// or 254 for a subscription whose options are at `extra`.
    var accuracyCode: UInt8
    /// Timeout in milliseconds, or -1 for none.
    var timeoutMilliseconds: Int32
    var extra: Int32

    var isSubscription: Bool { accuracyCode == 254 }
}

/// A deterministic workload: the same settings and seed give the same operations at the same times.
struct WorkloadPlan: Sendable {
    static let levels: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room]
    /// Accuracy weights: mostly coarse (city, neighborhood, block), some precise (house, room).
    static let levelWeights = [25, 30, 25, 12, 8]

    private(set) var operations: [PlannedOperation] = []
    private(set) var requests: [RequestSpec] = []
    private(set) var customAccuracies: [LocationAccuracy] = []
    private(set) var subscriptionOptions: [SubscriptionOptions] = []

    init(_ settings: WorkloadSettings) {
        var rng = SplitMix64(seed: settings.seed)
        operations.reserveCapacity(settings.operations)
        requests.reserveCapacity(settings.operations)
        var requestTimes: [Int64] = []
        requestTimes.reserveCapacity(settings.operations)
        let total = settings.mix.total
        // Arrivals draw from their own generator, so every arrival model gets the same requests.
        var arrivalGenerator = SplitMix64(seed: settings.seed ^ 0xA5A5_5A5A_C3C3_3C3C)
        var onOff: OnOffArrivals? = if case .onOff(let process) = settings.arrival { process } else { nil }
        var commute: CommuteArrivals? = if case .commute(let process) = settings.arrival { process } else { nil }
        for index in 0..<settings.operations {
            let arrival: Int64 =
                switch settings.arrival {
                case .burst: 0
                case .steady(let rate): Int64(Double(index) / rate * 1e9)
                case .onOff: onOff!.next(using: &arrivalGenerator)
                case .commute: commute!.next(using: &arrivalGenerator)
                }
            var kind = settings.mix.kind(for: rng.int(total))
            if requestTimes.isEmpty && (kind == .cancel || kind == .forceComplete) { kind = .oneShot }
            switch kind {
            case .oneShot:
                operations.append(PlannedOperation(at: arrival, request: Int32(requests.count), kind: .oneShot))
                requestTimes.append(arrival)
                requests.append(oneShotSpec(&rng, settings))
            case .subscription:
                operations.append(PlannedOperation(at: arrival, request: Int32(requests.count), kind: .subscribe))
                requestTimes.append(arrival)
                requests.append(RequestSpec(accuracyCode: 254, timeoutMilliseconds: -1, extra: Int32(subscriptionOptions.count)))
                subscriptionOptions.append(Self.subscription(&rng))
            case .cancel, .forceComplete:
                let target = rng.int(requestTimes.count)
                // Acts up to 5 s after its target arrived, never before this slot's own arrival.
                let at = max(arrival, requestTimes[target] + Int64(rng.int(5_000)) * 1_000_000)
                operations.append(PlannedOperation(at: at, request: Int32(target), kind: kind == .cancel ? .cancel : .forceComplete))
            }
        }
        operations.sort { $0.at < $1.at }
    }

    /// The accuracy a one-shot asks for.
    /// The place of a request's accuracy in ``levels``, or `nil` for a custom accuracy.
    func levelIndex(of request: Int) -> Int? {
        let code = requests[request].accuracyCode
        return code == 255 ? nil : Int(code)
    }

    func accuracy(of request: Int) -> LocationAccuracy {
        let spec = requests[request]
        return spec.accuracyCode == 255 ? customAccuracies[Int(spec.extra)] : Self.levels[Int(spec.accuracyCode)]
    }

    /// A one-shot's timeout.
    func timeout(of request: Int) -> Duration? {
        let milliseconds = requests[request].timeoutMilliseconds
        return milliseconds < 0 ? nil : .milliseconds(Int64(milliseconds))
    }

    /// A subscription's options.
    func options(of request: Int) -> SubscriptionOptions { subscriptionOptions[Int(requests[request].extra)] }

    var requestCount: Int { requests.count }

    /// The mode a request needs the source in while it waits, or `nil` when it never powers it (a
    /// passive subscription): the engine's own rule for one-shots and subscriptions.
    func powerDemand(of request: Int) -> PowerMode? {
        guard requests[request].isSubscription else { return accuracy(of: request).requiredPowerMode }
        let options = options(of: request)
        switch options.kind {
        case .passive: return nil
        case .significantChange: return options.accuracy?.requiredPowerMode ?? .lowest
        case .standard, .heading: return options.accuracy?.requiredPowerMode ?? .best
        }
    }

    private mutating func oneShotSpec(_ rng: inout SplitMix64, _ settings: WorkloadSettings) -> RequestSpec {
        var spec = RequestSpec(accuracyCode: 0, timeoutMilliseconds: -1, extra: 0)
        if rng.int(20) == 0 {
            spec.accuracyCode = 255
            spec.extra = Int32(customAccuracies.count)
            customAccuracies.append(.custom(metres: Double(5 + rng.int(2_000)), maximumAge: .seconds(Int64(5 + rng.int(120)))))
        } else {
            spec.accuracyCode = UInt8(Self.level(for: rng.int(Self.levelWeights.reduce(0, +))))
        }
        if Double(rng.int(10_000)) >= settings.noTimeoutFraction * 10_000 {
            let low = Int(settings.timeoutRange.lowerBound.saturatingNanoseconds / 1_000_000)
            let high = Int(settings.timeoutRange.upperBound.saturatingNanoseconds / 1_000_000)
            spec.timeoutMilliseconds = Int32(low + rng.int(max(1, high - low + 1)))
        }
        return spec
    }

    /// The index into ``levels`` of a uniform draw in `0..<levelWeights.sum`.
    static func level(for draw: Int) -> Int {
        var remaining = draw
        for (index, weight) in levelWeights.enumerated() {
            if remaining < weight { return index }
            remaining -= weight
        }
        return levels.count - 1
    }

    /// A subscription: nine in ten short (5–20 s, a screen showing the position: mostly standard with a
    /// coarse accuracy, some passive, significant-change or heading), one in ten long (60–120 s, a
    /// background tracker: significant-change or city accuracy, the lowest mode). Every subscription
    /// ends by itself, so a run drains.
    static func subscription(_ rng: inout SplitMix64) -> SubscriptionOptions {
        if rng.int(10) == 0 {
            let significant = rng.int(3) != 0
            return SubscriptionOptions(
                kind: significant ? .significantChange : .standard, accuracy: significant ? nil : .city,
                duration: .seconds(Int64(60 + rng.int(61))))
        }
        let kinds: [SubscriptionKind] = [.standard, .standard, .standard, .standard, .standard, .passive, .passive, .significantChange, .heading]
        return SubscriptionOptions(
            kind: kinds[rng.int(kinds.count)],
            // Mostly with an accuracy (coarse as a rule); without one a standard subscription wants the best mode.
            accuracy: rng.int(8) == 0 ? nil : levels[level(for: rng.int(levelWeights.reduce(0, +)))],
            distanceFilter: rng.int(3) == 0 ? Double(10 + rng.int(200)) : 0,
            minimumInterval: rng.int(3) == 0 ? .seconds(Int64(1 + rng.int(5))) : .zero,
            maximumUpdates: rng.int(3) == 0 ? 1 + rng.int(20) : nil,
            duration: .seconds(Int64(5 + rng.int(16))))
    }
}

extension WorkloadPlan: RequestExpectations {
    /// What the request with this ID asked for: locbench is the only submitter, so request number `n`
    /// (``RequestID/sequence``) is the plan's request `n - 1`.
    func expectation(of id: RequestID) -> ExpectedRequest? {
        let request = Int(truncatingIfNeeded: id.sequence &- 1)
        guard request >= 0, request < requests.count else { return nil }
        if requests[request].isSubscription { return .subscription(options(of: request)) }
        return .oneShot(accuracy: accuracy(of: request), timeout: timeout(of: request))
    }
}
