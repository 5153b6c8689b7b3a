/// How the engine powers its source down when no request needs it (see <doc:PowerPolicy>).
public struct PowerDownRule: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case restartAware(trust: Double)
        case fixedLinger
    }

    let kind: Kind

    /// With a source that describes its receiver (``SourceCapabilities/powerProfile``): stay on, stand by or go
    /// off by the energy break-even of a restart (ski rental, ``PowerDownDecider``; at most 2× the offline optimum),
    /// each switch moved to the one that would have cost least over the recent gaps when that would have spent at
    /// most `trust ×` the break-even's energy (`trust` clamped to `[0.5, 1]`; 1 is the plain break-even; no switch
    /// later than `break-even / trust`). Without a profile, the fixed ``LocationEngineConfiguration/linger``.
    public static func restartAware(trust: Double) -> PowerDownRule {
        PowerDownRule(kind: .restartAware(trust: trust.isFinite ? min(1, max(0.5, trust)) : 1))
    }

    /// The default: ``restartAware(trust:)`` with trust 0.75.
    public static let restartAware = restartAware(trust: 0.75)

    /// The fixed linger, whatever the source describes: the override.
    public static let fixedLinger = PowerDownRule(kind: .fixedLinger)

    /// How much the recent gaps are trusted, or `nil` for ``fixedLinger``.
    public var trust: Double? {
        if case .restartAware(let trust) = kind { return trust }
        return nil
    }

    public var description: String {
        switch kind {
        case .restartAware(let trust): "restart-aware (trust \(trust))"
        case .fixedLinger: "fixed linger"
        }
    }
}
