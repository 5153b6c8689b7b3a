@testable import LocationEngine

extension MachineHarness {
    /// Where the scenario's regions are.
    static let regionOrigin = GeoPoint(latitude: 48.0, longitude: 11.0)

    /// Monitors a circle of `radius` metres around ``regionOrigin``.
    @discardableResult
    mutating func monitor(_ tag: String, radius: Double = 200, options: GeofenceOptions = GeofenceOptions()) -> RequestID {
        let id = newID(tag)
        carryOut(machine.monitor(id, region: try! .circle(centre: Self.regionOrigin, radius: radius), options: options, madeAt: nil, handler: tag, now: now))
        return id
    }

    /// A fix `east` metres east of ``regionOrigin``, of `accuracy` metres.
    mutating func fix(east: Double, accuracy: Double = 5, age: Duration = .zero) {
        let point = offset(Self.regionOrigin, north: 0, east: east)
        fix(Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: accuracy), age: age)
    }

    /// The end a subscription or monitor received, if any.
    func end(_ tag: String) -> SubscriptionEnd? {
        for event in events[tag] ?? [] { if case .ended(let end) = event { return end } }
        return nil
    }

    /// How many `.ended` events a tag received.
    func endings(_ tag: String) -> Int {
        (events[tag] ?? []).filter { if case .ended = $0 { true } else { false } }.count
    }
}
