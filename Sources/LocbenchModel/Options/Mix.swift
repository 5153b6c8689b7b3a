import Foundation

/// The share of each operation kind in a workload, parsed from `oneshot=70,subscription=10,cancel=10,force=10`.
public struct Mix: Sendable, Equatable, CustomStringConvertible {
    /// An operation a workload draws.
    public enum Kind: String, CaseIterable, Sendable {
        /// A one-shot location request.
        case oneShot = "oneshot"
        /// A subscription to updates.
        case subscription
        /// A cancel of an earlier request.
        case cancel
        /// A force-complete of an earlier request.
        case forceComplete = "force"
    }

    /// The weight of each kind; a kind without an entry weighs zero (zero weights are not stored, so that
    /// `oneshot=1` and `oneshot=1,cancel=0` are equal mixes).
    public private(set) var weights: [Kind: Int]

    /// locbench's default mix: mostly one-shots.
    public static let standard = Mix(weights: [.oneShot: 70, .subscription: 10, .cancel: 10, .forceComplete: 10])

    /// A mix of these weights (non-negative, their sum within `Int`).
    public init(weights: [Kind: Int]) { self.weights = weights.filter { $0.value != 0 } }

    /// Parses `name=weight,…`; unknown names, negative weights, weights whose sum overflows `Int` or a mix
    /// without one-shots or subscriptions are errors.
    public init(parsing text: String) throws(LocbenchError) {
        var weights: [Kind: Int] = [:]
        for part in text.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pieces.count == 2, let kind = Kind(rawValue: pieces[0].lowercased()) else {
                throw .badArgument("--mix: unknown entry '\(part)'; use names \(Kind.allCases.map(\.rawValue).joined(separator: ", ")) with integer weights, e.g. oneshot=70,subscription=10,cancel=10,force=10")
            }
            guard let weight = Int(pieces[1]), weight >= 0 else {
                throw .badArgument("--mix: weight of \(kind.rawValue) must be a non-negative integer, got '\(pieces[1])'")
            }
            weights[kind] = weight
        }
        var total = 0
        for weight in weights.values {
            let (sum, overflow) = total.addingReportingOverflow(weight)
            guard !overflow else { throw .badArgument("--mix: the weights add up to more than \(Int.max); use smaller weights in the same proportions") }
            total = sum
        }
        guard total > 0, (weights[.oneShot] ?? 0) + (weights[.subscription] ?? 0) > 0 else {
            throw .badArgument("--mix: at least one of oneshot or subscription needs a positive weight")
        }
        self.init(weights: weights)
    }

    /// Picks a kind for a uniform draw in `0..<total`.
    /// - Complexity: O(k) for k kinds.
    public func kind(for draw: Int) -> Kind {
        var remaining = draw
        for kind in Kind.allCases {
            let weight = weights[kind] ?? 0
            if remaining < weight { return kind }
            remaining -= weight
        }
        return .oneShot
    }

    /// The sum of the weights.
    public var total: Int { weights.values.reduce(0, +) }

    /// Every kind's weight as `name=weight`, comma-separated, in the form ``init(parsing:)`` reads.
    public var description: String {
        Kind.allCases.map { "\($0.rawValue)=\(weights[$0] ?? 0)" }.joined(separator: ",")
    }
}
