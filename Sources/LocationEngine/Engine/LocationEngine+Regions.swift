extension LocationEngine {
    // MARK: Geofences

    /// Monitors a region with a callback (see <doc:Geofences>). Returns the monitor's ID at once;
    /// `handler` receives, with that ID, the region's transitions — first its state once a confident
    /// fix decides it — transient source errors, and finally one `.ended` event, unless the monitor is
    /// cancelled, after which it hears nothing. The monitors power the source as a standard
    /// subscription does, but for the times the distance to the nearest boundary lets it sleep
    /// (``GeofenceConfiguration/maximumSpeed``). After the engine has shut down, the handler hears
    /// `.ended(.shutDown)` at once, on the caller's thread, before this call returns: don't hold a
    /// lock the handler takes while calling.
    @discardableResult
    public nonisolated func monitor(
        _ region: GeofenceRegion,
        options: GeofenceOptions = GeofenceOptions(),
        handler: @escaping @Sendable (RequestID, RegionEvent) -> Void
    ) -> RequestID {
        let madeAt = now()
        return submit { .monitor($0, region, options, madeAt: madeAt, .callback(handler)) }
    }

    /// Monitors a region as an async sequence of its transitions (see <doc:Geofences>). Ending the
    /// iteration (or cancelling the iterating task) cancels the monitor; its ``RegionUpdates/id`` ends
    /// it by ID.
    ///
    /// - Parameters:
    ///   - region: the region to monitor.
    ///   - options: how it is monitored (its loitering delay).
    ///   - bufferingNewest: how many undelivered transitions to keep for a slow consumer; older ones
    ///     are dropped (at least 1).
    public nonisolated func monitor(
        _ region: GeofenceRegion,
        options: GeofenceOptions = GeofenceOptions(),
        bufferingNewest: Int = 64
    ) -> RegionUpdates {
        let (stream, continuation) = AsyncThrowingStream<RegionSink.Stamped, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, bufferingNewest)))
        let sink = RegionSink(continuation: continuation, epochs: privacy)
        let madeAt = now()
        let id = submit { .monitor($0, region, options, madeAt: madeAt, .stream(sink)) }
        // Held as ``updates(_:bufferingNewest:)`` holds it: released, the engine would leave the loop hanging.
        let cancelRequest: @Sendable () -> Void = { self.cancel(id) }
        continuation.onTermination = { termination in
            if case .cancelled = termination { cancelRequest() }
        }
        return RegionUpdates(id: id, stream: stream, epochs: privacy, cancel: cancelRequest)
    }

    /// The engine's instant now, on the timeline of ``GeofenceEvent/at``: to place a stored instant of
    /// an earlier run on it (``GeofenceRestoredState/since``), move back from here by the time passed
    /// since that instant.
    public nonisolated func currentInstant() -> EngineInstant { now() }

    /// The state of the region monitored as `id`, as of what the engine has processed, or `nil` when
    /// no such monitor is running (or it waits for authorization).
    public func regionState(_ id: RequestID) -> GeofenceState? { inspect { $0.regionState(id) } }
}
