/// How hard a ``LocationSource`` should work, cheapest first (INTULocationManager's mapping; see <doc:PowerPolicy>).
///
/// The engine runs the source in the cheapest mode that satisfies its most demanding active request,
/// and recomputes it on every add and removal.
public enum PowerMode: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// About 3 km: city requests and significant-change subscriptions.
    case lowest = 0
    /// About 1 km: neighborhood.
    case low
    /// About 100 m: block.
    case medium
    /// About 10 m: house.
    case high
    /// The best the source can do: room.
    case best

    /// The accuracy in metres this mode aims for (`0` for ``best``: as good as possible).
    public var targetAccuracy: Double {
        switch self {
        case .lowest: 3000
        case .low: 1000
        case .medium: 100
        case .high: 10
        case .best: 0
        }
    }

    /// The cheapest mode whose target accuracy is at least as fine as `metres`.
    public init(forAccuracy metres: Double) {
        switch metres {
        case 3000...: self = .lowest
        case 1000...: self = .low
        case 100...: self = .medium
        case 10...: self = .high
        default: self = .best
        }
    }

    public static func < (lhs: PowerMode, rhs: PowerMode) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .lowest: "lowest"
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        case .best: "best"
        }
    }
}
