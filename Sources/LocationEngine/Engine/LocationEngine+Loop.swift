import ServiceLifecycle

extension LocationEngine: Service {
    /// The engine's lifetime: processes requests, fixes and timers until the engine shuts down, then
    /// returns. On graceful shutdown (a swift-service-lifecycle `ServiceGroup`) or cancellation of the
    /// calling task it shuts down at once: every pending request ends exactly once with
    /// ``LocationStatus/shutDown`` / ``SubscriptionEnd/shutDown``, the source is stopped, and `run()`
    /// returns when that is done.
    ///
    /// The loop, the one timer and the sources' own lifetimes (``LocationSource/run()``) run inside it, as its
    /// children; requests made before it starts wait for it. Without a service group, start it with `Task { try await engine.run() }`. An engine runs
    /// once at a time: a second concurrent `run()` throws ``LocationEngineError``. Once the engine has shut
    /// down, `run()` returns at once, starting nothing.
    public func run() async throws {
        guard !isRunning else { throw LocationEngineError.alreadyRunning }
        // Shut down already: nothing to run, and no source's lifetime (a connection) to begin and end again.
        guard !driver.machine.isShutDown else { return }
        isRunning = true
        defer { isRunning = false }
        driver.authorization.startIfNeeded()
        await withTaskCancellationOrGracefulShutdownHandler {
            await withDiscardingTaskGroup { children in
                children.addTask { await self.timer.run { self.timerDidFire() } }
                for source in driver.sources.sources {
                    children.addTask { await source.run() }
                }
                await loop()
                timer.stop()
                // The sources were stopped by the shutdown: their lifetimes end with the engine's.
                children.cancelAll()
            }
        } onCancelOrGracefulShutdown: {
            self.submit(.shutdown)
        }
    }

    /// Ends every pending request with ``LocationStatus/shutDown`` / ``SubscriptionEnd/shutDown``, powers
    /// the source down, and refuses later requests the same way; returns when that is done (``run()``
    /// returns too). Works whether or not `run()` is active.
    public nonisolated func shutdown() async {
        submit(.shutdown)
        await settle()
    }

    /// Whether the engine has shut down (``shutdown()``, a graceful shutdown, or ``run()``'s task cancelled): every
    /// request made from now on ends at once with ``LocationStatus/shutDown`` / ``SubscriptionEnd/shutDown``. A
    /// server can answer a new request "unavailable" by it, rather than open a response the engine ends at once.
    public var isShutDown: Bool { driver.machine.isShutDown }

    /// The engine's one loop: drains the inbox, processes what is due, arms the one timer for the next
    /// live instant, and parks until a command or the timer wakes it; returns once the engine has
    /// shut down.
    func loop() async {
        while true {
            driver.advance()
            if driver.machine.isShutDown { return }
            driver.machine.compactIfIdle(now: now())
            timer.arm(inspect { $0.nextWakeup })
            await inbox.park()
        }
    }

    /// The timer fired: wakes the loop.
    nonisolated func timerDidFire() {
        timerWakeups.wrappingIncrement(ordering: .relaxed)
        metrics.timerWakeups.increment()
        inbox.timerFired().carryOut()
    }
}
