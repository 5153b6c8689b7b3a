import ServiceLifecycle

extension LocationEngine: Service {
    /// The engine's lifetime: processes requests, fixes and timers until the engine shuts down, then
    /// returns. On graceful shutdown (a swift-service-lifecycle `ServiceGroup`) or cancellation of the
    /// calling task it shuts down at once: every pending request ends exactly once with
    /// ``LocationStatus/shutDown`` / ``SubscriptionEnd/shutDown``, the source is stopped, and `run()`
    /// returns when that is done.
    ///
    /// While `run()` is active the engine's loop runs inside it and stays alive when idle. Without it,
    /// the engine runs the same loop by itself while there is work; call ``shutdown()`` to end it.
    public func run() async throws {
        isHosted = true
        defer { isHosted = false }
        await withTaskCancellationOrGracefulShutdownHandler {
            if inbox.claimLoop() {
                await loop()
            } else {
                await inbox.waitUntilStoppedForGood()
            }
        } onCancelOrGracefulShutdown: {
            self.submit(.shutdown)
        }
    }

    /// Ends every pending request with ``LocationStatus/shutDown`` / ``SubscriptionEnd/shutDown``, powers
    /// the source down, refuses later requests the same way, and returns when the engine's loop has
    /// stopped.
    public nonisolated func shutdown() async {
        submit(.shutdown)
        await inbox.waitUntilStoppedForGood()
    }

    /// The engine's one loop: drains the inbox, processes what is due, arms the one timer for the next
    /// live instant, and parks until a command or the timer wakes it. It stops when the engine is
    /// shut down, and — unless ``run()`` hosts it — when nothing is pending on the timeline.
    func loop() async {
        while true {
            advance()
            machine.compactIfIdle(now: now())
            let next = machine.nextWakeup
            timer.arm(next)
            let keepAlive = !machine.isShutDown && (isHosted || next != nil)
            if !keepAlive && inbox.stopIfIdle(shutDown: machine.isShutDown) {
                if machine.isShutDown { timer.stop() }  // its task ends with the engine's lifetime
                return
            }
            if keepAlive { await inbox.park() }
        }
    }

    /// The timer fired: wakes the loop (or starts one).
    nonisolated func timerDidFire() {
        timerWakeups.wrappingIncrement(ordering: .relaxed)
        metrics.timerWakeups.increment()
        perform(inbox.timerFired())
    }
}
