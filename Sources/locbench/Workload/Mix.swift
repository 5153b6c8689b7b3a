/// The share of each operation kind in a workload, parsed from `oneshot=70,subscription=10,cancel=10,force=10`.
struct Mix: Sendable, Equatable, CustomStringConvertible {
    enum Kind: String, CaseIterable, Sendable {
        case oneShot = "oneshot"
        case subscription
        case cancel
        case forceComplete = "force"
    }

    private(set) var weights: [Kind: Int]

    static let standard = Mix(weights: [.oneShot: 70, .subscription: 10, .cancel: 10, .forceComplete: 10])

    init(weights: [Kind: Int]) { self.weights = weights }

    /// Parses `name=weight,…`; unknown names, negative weights or an all-zero mix are errors.
    init(parsing text: String) throws(LocbenchError) {
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
        guard weights.values.reduce(0, +) > 0, (weights[.oneShot] ?? 0) + (weights[.subscription] ?? 0) > 0 else {
            throw .badArgument("--mix: at least one of oneshot or subscription needs a positive weight")
        }
        self.weights = weights
    }

    /// Picks a kind for a uniform draw in `0..<total`.
    func kind(for draw: Int) -> Kind {
        var remaining = draw
        for kind in Kind.allCases {
            let weight = weights[kind] ?? 0
            if remaining < weight { return kind }
            remaining -= weight
        }
        return .oneShot
    }

    var total: Int { weights.values.reduce(0, +) }

    var description: String {
        Kind.allCases.map { "\($0.rawValue)=\(weights[$0] ?? 0)" }.joined(separator: ",")
    }
}

import Foundation
