/// An engine's clock with the instant it was created: the engine's timeline counts from there
/// (``EngineInstant``).
///
/// A class, not a struct: where the engine's code is not specialized for its clock (a clock of the
/// application's own, the manual clock of tests and `locbench`), reading a field of a generic struct
/// looked up the struct's metadata on every call (a hash-table probe in the runtime, about 3 % of a
/// `locbench` run in a profile); a class's fields are found through its instance.
final class EngineClock<C: Clock>: Sendable where C.Duration == Duration {
    let clock: C
    let epoch: C.Instant

    init(_ clock: C) {
        self.clock = clock
        self.epoch = clock.now
    }

    /// The current instant on the engine's timeline.
    @inline(__always)
    func now() -> EngineInstant { EngineInstant(epoch.duration(to: clock.now)) }

    /// The clock's instant for `instant` on the engine's timeline.
    func instant(_ instant: EngineInstant) -> C.Instant { epoch.advanced(by: instant.sinceEpoch) }
}
