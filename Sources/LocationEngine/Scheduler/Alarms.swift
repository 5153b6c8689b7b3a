/// The alarm each part of the core other than the requests keeps: the instant of its earliest deadline.
/// Each part keeps its own deadlines in the order it needs (authorization's changes with what they
/// change, the region evaluator's dwells and timeouts, the power planner's steps), and the settle step
/// reads the earliest one from it into its alarm here. The core's next wake-up is the earliest of these
/// alarms and the requests' earliest deadline; at one instant the requests' deadlines come first, then
/// the alarms in ``Part`` order.
struct Alarms: Sendable {
    /// A part of the core with an alarm, in the order equal instants fire.
    enum Part: Int, Sendable {
        /// The next scheduled authorization change.
        case authorization
        /// The regions' next dwell or unknown timeout.
        case regions
        /// The power planner's next step: a linger's end, a step down, the monitors' wake-up, a fallback.
        case power
    }

    private var authorization: EngineInstant?
    private var regions: EngineInstant?
    private var power: EngineInstant?

    /// The instant `part`'s alarm is set for, if it is; `nil` clears it.
    /// - Complexity: O(1)
    subscript(part: Part) -> EngineInstant? {
        @inline(__always) get {
            switch part {
            case .authorization: authorization
            case .regions: regions
            case .power: power
            }
        }
        @inline(__always) set {
            switch part {
            case .authorization: authorization = newValue
            case .regions: regions = newValue
            case .power: power = newValue
            }
        }
    }

    /// The earliest alarm set, with its part, leaving out the power planner's when `skippingPower` and the
    /// regions' when `skippingRegions`; at one instant the first part in ``Part`` order.
    /// - Complexity: O(1)
    func earliest(skippingPower: Bool = false, skippingRegions: Bool = false) -> (part: Part, at: EngineInstant)? {
        var earliest = authorization.map { (part: Part.authorization, at: $0) }
        if !skippingRegions, let at = regions, earliest.map({ at < $0.at }) ?? true { earliest = (.regions, at) }
        if !skippingPower, let at = power, earliest.map({ at < $0.at }) ?? true { earliest = (.power, at) }
        return earliest
    }

    /// The earliest instant an alarm is set for.
    /// - Complexity: O(1)
    // Written out rather than `earliest()?.at`: read on every event for the next wake-up, the tuple of
    // part and instant cost 6 instructions a submission more (callgrind).
    @inline(__always)
    var earliestInstant: EngineInstant? {
        var earliest = authorization
        if let at = regions, earliest.map({ at < $0 }) ?? true { earliest = at }
        if let at = power, earliest.map({ at < $0 }) ?? true { earliest = at }
        return earliest
    }

    /// Takes the earliest alarm if it is due at `now`, clearing it; the power planner's stays when
    /// `skippingPower`.
    /// - Complexity: O(1)
    mutating func popDue(at now: EngineInstant, skippingPower: Bool = false, skippingRegions: Bool = false) -> (part: Part, at: EngineInstant)? {
        guard let due = earliest(skippingPower: skippingPower, skippingRegions: skippingRegions), due.at <= now else { return nil }
        self[due.part] = nil
        return due
    }
}
