/// An engine's clock with the instant it was created: the engine's timeline counts from there
/// (``EngineInstant``).
struct EngineClock<C: Clock>: Sendable where C.Duration == Duration {
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
