import LocationEngine
import LocationEngineTestKit

/// The settings a plan is drawn from.
struct WorkloadSettings: Sendable {
    var operations: Int
    var mix: Mix
    /// Operations per second; `nil` puts every request at time zero ("all at once").
    var arrivalRate: Double?
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
    /// Accuracy weights: mostly block and house, as apps ask.
    static let levelWeights = [10, 20, 30, 25, 15]

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
        for index in 0..<settings.operations {
            let arrival = settings.arrivalRate.map { Int64(Double(index) / $0 * 1e9) } ?? 0
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

    private mutating func oneShotSpec(_ rng: inout SplitMix64, _ settings: WorkloadSettings) -> RequestSpec {
        var spec = RequestSpec(accuracyCode: 0, timeoutMilliseconds: -1, extra: 0)
        if rng.int(20) == 0 {
            spec.accuracyCode = 255
            spec.extra = Int32(customAccuracies.count)
            customAccuracies.append(.custom(metres: Double(5 + rng.int(2_000)), maximumAge: .seconds(Int64(5 + rng.int(120)))))
        } else {
            var draw = rng.int(Self.levelWeights.reduce(0, +))
            for (index, weight) in Self.levelWeights.enumerated() {
                if draw < weight {
                    spec.accuracyCode = UInt8(index)
                    break
                }
                draw -= weight
            }
        }
        if Double(rng.int(10_000)) >= settings.noTimeoutFraction * 10_000 {
            let low = Int(settings.timeoutRange.lowerBound.saturatingNanoseconds / 1_000_000)
            let high = Int(settings.timeoutRange.upperBound.saturatingNanoseconds / 1_000_000)
            spec.timeoutMilliseconds = Int32(low + rng.int(max(1, high - low + 1)))
        }
        return spec
    }

    static func subscription(_ rng: inout SplitMix64) -> SubscriptionOptions {
        let kinds: [SubscriptionKind] = [.standard, .standard, .standard, .passive, .significantChange, .heading]
        return SubscriptionOptions(
            kind: kinds[rng.int(kinds.count)],
            accuracy: rng.int(2) == 0 ? nil : levels[rng.int(levels.count)],
            distanceFilter: rng.int(3) == 0 ? Double(10 + rng.int(200)) : 0,
            minimumInterval: rng.int(3) == 0 ? .seconds(Int64(1 + rng.int(5))) : .zero,
            maximumUpdates: rng.int(3) == 0 ? 1 + rng.int(20) : nil,
            // Every subscription ends by itself, so a run always drains.
            duration: .seconds(Int64(5 + rng.int(115))))
    }
}
