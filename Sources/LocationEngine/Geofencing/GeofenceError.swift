/// Why a region cannot be monitored. Regions are checked when they are made, so a rejected region
/// never reaches the engine and schedules nothing.
///
/// A struct wrapping a private code, so that new cases do not break users' `switch`es; compare with
/// the static members (`error == .degenerateRing`).
public struct GeofenceError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case invalidCentre
        case invalidVertex(index: Int)
        case invalidRadius
        case regionTooLarge
        case tooFewVertices(Int)
        case tooManyVertices(Int)
        case selfIntersecting(edge: Int, other: Int)
        case degenerateRing
        case tooCloseToPole
        case invalidOption(String)
    }

    let code: Code

    /// A circle's centre is NaN, infinite or out of range.
    public static let invalidCentre = GeofenceError(code: .invalidCentre)
    /// The vertex at `index` is NaN, infinite or out of range.
    public static func invalidVertex(at index: Int) -> GeofenceError { GeofenceError(code: .invalidVertex(index: index)) }
    /// A circle's radius is not finite and positive.
    public static let invalidRadius = GeofenceError(code: .invalidRadius)
    /// The region is wider than ``GeofenceRegion/maximumExtent``.
    public static let regionTooLarge = GeofenceError(code: .regionTooLarge)
    /// A ring has fewer than 3 distinct vertices (`count` of them).
    public static func tooFewVertices(_ count: Int) -> GeofenceError { GeofenceError(code: .tooFewVertices(count)) }
    /// A ring has more than ``GeofenceRegion/maximumVertices`` vertices (`count` of them).
    public static func tooManyVertices(_ count: Int) -> GeofenceError { GeofenceError(code: .tooManyVertices(count)) }
    /// Edge `edge` of the ring crosses or touches edge `other` (edge `i` runs from vertex `i` to the next).
    public static func selfIntersecting(edge: Int, other: Int) -> GeofenceError {
        GeofenceError(code: .selfIntersecting(edge: edge, other: other))
    }
    /// The ring encloses no area (all its vertices on one line).
    public static let degenerateRing = GeofenceError(code: .degenerateRing)
    /// Part of the region lies beyond ``GeofenceRegion/maximumLatitude``.
    public static let tooCloseToPole = GeofenceError(code: .tooCloseToPole)
    /// A monitoring option is out of range; `name` says which.
    public static func invalidOption(_ name: String) -> GeofenceError { GeofenceError(code: .invalidOption(name)) }

    public var description: String {
        switch code {
        case .invalidCentre:
            "the circle's centre must have a finite latitude in -90...90 and longitude in -180...180"
        case .invalidVertex(let index):
            "vertex \(index) must have a finite latitude in -90...90 and longitude in -180...180"
        case .invalidRadius:
            "the radius must be finite and greater than 0 metres"
        case .regionTooLarge:
            "the region spans more than \(Int(GeofenceRegion.maximumExtent)) m: split it into smaller regions"
        case .tooFewVertices(let count):
            "a ring needs at least 3 distinct vertices, this one has \(count)"
        case .tooManyVertices(let count):
            "a ring may have at most \(GeofenceRegion.maximumVertices) vertices, this one has \(count): simplify it"
        case .selfIntersecting(let edge, let other):
            "the ring crosses itself (edge \(edge) meets edge \(other)): give a simple ring"
        case .degenerateRing:
            "the ring encloses no area: its vertices lie on one line"
        case .tooCloseToPole:
            "the region reaches beyond latitude ±\(Int(GeofenceRegion.maximumLatitude))°, where the engine cannot monitor it"
        case .invalidOption(let name):
            "the monitoring option \(name) is out of range"
        }
    }
}
