import LocationEngine

extension LocationEngine where C == ManualClock {
    /// Moves the engine's manual clock to `instant`, processing everything that falls due on the way,
    /// each at its own instant (a timeout at t+5 s expires at t+5 s, with what was known then), and
    /// returns with everything due at `instant` processed too.
    ///
    /// This makes a fix arrive at a chosen instant relative to deadlines, deterministically:
    ///
    /// ```swift
    /// let id = engine.location(accuracy: .house, timeout: .seconds(5)) { … }
    /// await engine.sync(advancingTo: clock.now.advanced(by: .seconds(5)))  // the deadline passes first
    /// source.emit(fix)                                                     // arrives at exactly t+5 s
    /// await engine.sync()                                                  // timed out: too late
    /// ```
    public func sync(advancingTo instant: ManualClock.Instant) {
        sync()
        while let next = nextWakeup(), next <= instant, next > clock.now {
            clock.advance(to: next)
            sync()
        }
        clock.advance(to: instant)
        sync()
    }

    /// Moves the engine's manual clock forward by `duration`; see ``sync(advancingTo:)``.
    public func sync(advancingBy duration: Duration) {
        sync(advancingTo: clock.now.advanced(by: duration))
    }
}
