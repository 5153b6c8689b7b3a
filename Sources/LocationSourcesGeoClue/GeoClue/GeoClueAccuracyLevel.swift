import LocationEngine

/// GeoClue's accuracy levels (`GClueAccuracyLevel`): what a client asks for with `RequestedAccuracyLevel`.
/// GeoClue starts only its sources that can reach the level (IP and Wi-Fi for city, GNSS for exact) and
/// an agent may grant a lower level than asked.
public enum GeoClueAccuracyLevel: UInt32, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case none = 0
    case country = 1
    case city = 4
    case neighborhood = 5
    case street = 6
    case exact = 8

    /// The level that serves what the engine asks of the source in `mode`: city for its lowest mode
    /// (kilometres), neighbourhood for a kilometre, street for a hundred metres, exact for better.
    public init(_ mode: PowerMode) {
        switch mode {
        case .lowest: self = .city
        case .low: self = .neighborhood
        case .medium: self = .street
        case .high, .best: self = .exact
        }
    }

    public var description: String {
        switch self {
        case .none: "none"
        case .country: "country"
        case .city: "city"
        case .neighborhood: "neighborhood"
        case .street: "street"
        case .exact: "exact"
        }
    }
}
