extension LocationEngine {
    /// Renamed: the callback form of ``location(accuracy:timeout:delayUntilAuthorized:purposeKey:handler:)``.
    @available(*, deprecated, renamed: "location(accuracy:timeout:delayUntilAuthorized:purposeKey:handler:)")
    @discardableResult
    public nonisolated func requestLocation(
        accuracy: LocationAccuracy,
        timeout: Duration?,
        delayUntilAuthorized: Bool = false,
        purposeKey: String? = nil,
        handler: @escaping @Sendable (LocationResult) -> Void
    ) -> RequestID {
        location(accuracy: accuracy, timeout: timeout, delayUntilAuthorized: delayUntilAuthorized, purposeKey: purposeKey, handler: handler)
    }

    /// Renamed: the callback form of ``updates(_:handler:)``.
    @available(*, deprecated, renamed: "updates(_:handler:)")
    @discardableResult
    public nonisolated func subscribe(
        _ options: SubscriptionOptions = SubscriptionOptions(),
        handler: @escaping @Sendable (RequestID, SubscriptionEvent) -> Void
    ) -> RequestID {
        updates(options, handler: handler)
    }
}
