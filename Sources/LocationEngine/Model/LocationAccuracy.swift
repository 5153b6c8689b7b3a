/// The accuracy levels of INTULocationManager, with its thresholds (see <doc:AccuracyLevels>).
///
/// A fix satisfies a level when its horizontal accuracy is at most ``horizontalAccuracy`` metres
/// **and** it is no older than ``maximumAge`` (both `<=`). Levels are ordered coarse to fine.
public enum AccuracyLevel: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// 5000 m, 600 s.
    case city = 0
    /// 1000 m, 300 s.
    case neighborhood
    /// 100 m, 60 s.
    case block
    /// 15 m, 15 s.
    case house
    /// 5 m, 5 s.
    case room

    /// The largest horizontal accuracy (metres) a fix may have to satisfy this level.
    public var horizontalAccuracy: Double {
        switch self {
        case .city: 5000
        case .neighborhood: 1000
        case .block: 100
        case .house: 15
        case .room: 5
        }
    }

    /// The oldest a fix may be to satisfy this level.
    public var maximumAge: Duration {
        switch self {
        case .city: .seconds(600)
        case .neighborhood: .seconds(300)
        case .block: .seconds(60)
        case .house: .seconds(15)
        case .room: .seconds(5)
        }
    }

    /// The cheapest power mode that can deliver this level.
    public var requiredPowerMode: PowerMode { PowerMode(forAccuracy: horizontalAccuracy) }

    /// The finest level that a fix of `horizontalAccuracy` metres and `age` meets, or `nil` (always
    /// `nil` for a negative or NaN accuracy, or a negative age: no real fix has those).
    public static func achieved(horizontalAccuracy: Double, age: Duration) -> AccuracyLevel? {
        guard horizontalAccuracy >= 0, age >= .zero else { return nil }
        var level: AccuracyLevel?
        for candidate in allCases where horizontalAccuracy <= candidate.horizontalAccuracy && age <= candidate.maximumAge {
            level = candidate
        }
        return level
    }

    public static func < (lhs: AccuracyLevel, rhs: AccuracyLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .city: "city"
        case .neighborhood: "neighborhood"
        case .block: "block"
        case .house: "house"
        case .room: "room"
        }
    }
}

/// What a request asks of a fix: one of the standard ``AccuracyLevel``s, or custom limits.
public struct LocationAccuracy: Sendable, Hashable, CustomStringConvertible {
    /// The standard level, or `nil` for a custom accuracy.
    public let level: AccuracyLevel?
    /// The largest horizontal accuracy, in metres, a fix may have.
    public let horizontalAccuracy: Double
    /// The oldest a fix may be.
    public let maximumAge: Duration

    /// A standard level.
    public init(_ level: AccuracyLevel) {
        self.level = level
        self.horizontalAccuracy = level.horizontalAccuracy
        self.maximumAge = level.maximumAge
    }

    /// Custom limits. `metres` must be finite and positive, `maximumAge` non-negative;
    /// a request with invalid values ends at once with ``LocationStatus/rejected(reason:)``.
    public static func custom(metres: Double, maximumAge: Duration) -> LocationAccuracy {
        LocationAccuracy(level: nil, horizontalAccuracy: metres, maximumAge: maximumAge)
    }

    private init(level: AccuracyLevel?, horizontalAccuracy: Double, maximumAge: Duration) {
        self.level = level
        self.horizontalAccuracy = horizontalAccuracy
        self.maximumAge = maximumAge
    }

    /// 5000 m, 600 s.
    public static let city = LocationAccuracy(.city)
    /// 1000 m, 300 s.
    public static let neighborhood = LocationAccuracy(.neighborhood)
    /// 100 m, 60 s.
    public static let block = LocationAccuracy(.block)
    /// 15 m, 15 s.
    public static let house = LocationAccuracy(.house)
    /// 5 m, 5 s.
    public static let room = LocationAccuracy(.room)

    /// Whether a fix of `horizontalAccuracy` metres and `age` satisfies these limits (both `<=`). A
    /// negative or NaN accuracy, or a negative age, satisfies nothing.
    @inlinable
    public func isSatisfied(horizontalAccuracy accuracy: Double, age: Duration) -> Bool {
        accuracy >= 0 && accuracy <= horizontalAccuracy && age >= .zero && age <= maximumAge
    }

    /// Whether the limits are usable: finite positive metres and a non-negative age.
    public var isValid: Bool {
        horizontalAccuracy.isFinite && horizontalAccuracy > 0 && !maximumAge.isNegative
    }

    /// The cheapest power mode that can deliver this accuracy.
    public var requiredPowerMode: PowerMode { PowerMode(forAccuracy: horizontalAccuracy) }

    public var description: String {
        if let level { return level.description }
        return "custom(\(horizontalAccuracy) m, \(maximumAge))"
    }
}
