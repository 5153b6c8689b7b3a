/// What moves a ``SyntheticLocationSource``'s time: its owner (manual, virtual time) or a clock.
public struct SourceDrive: Sendable {
    enum Kind: Sendable {
        case manual
        case clock(@Sendable () -> TimeBase)
    }

    let kind: Kind

    /// Time moves only when the owner calls ``SyntheticLocationSource/advance(to:)`` or
    /// ``SyntheticLocationSource/advance(by:)``, which emit every fix due synchronously. Deterministic.
    public static let manual = SourceDrive(kind: .manual)

    /// An internal task emits each fix when `clock` reaches its time; time zero is when the source is
    /// created. Use a manual clock in tests and `ContinuousClock()` in applications.
    public static func realTime<C: Clock>(_ clock: C) -> SourceDrive where C.Duration == Duration {
        SourceDrive(kind: .clock({ TimeBase(clock: clock) }))
    }

    /// ``realTime(_:)`` on the `ContinuousClock`.
    public static var realTime: SourceDrive { realTime(ContinuousClock()) }
}

/// Elapsed time since an origin on some clock, with the clock's type erased.
struct TimeBase: Sendable {
    /// Seconds since the origin.
    let now: @Sendable () -> Double
    /// Sleeps until `elapsed` seconds after the origin; throws when cancelled.
    let sleep: @Sendable (_ elapsed: Double) async throws -> Void

    init<C: Clock>(clock: C) where C.Duration == Duration {
        let origin = clock.now
        now = { origin.duration(to: clock.now).seconds }
        sleep = { elapsed in try await clock.sleep(until: origin.advanced(by: .seconds(elapsed)), tolerance: nil) }
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
