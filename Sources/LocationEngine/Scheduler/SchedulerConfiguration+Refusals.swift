extension SchedulerStateMachine.Configuration {
    /// Why a one-shot is refused at once, if it is: invalid arguments, an undeclared purpose key, an
    /// engine shut down, or access refused.
    @inline(__always)
    func refusal(
        accuracy: LocationAccuracy, timeout: Duration?, purposeKey: String?, isShutDown: Bool, gate: AuthorizationGate
    ) -> LocationStatus? {
        if !accuracy.isValid {
            .rejected(reason: "accuracy must be finite and positive with a non-negative maximum age (got \(accuracy))")
        } else if let timeout, timeout.isNegative {
            .rejected(reason: "timeout must not be negative (got \(timeout))")
        } else if let purposeKey, !declares(purposeKey: purposeKey) {
            .misconfigured(.undeclaredPurposeKey(purposeKey))
        } else if isShutDown {
            .shutDown
        } else if case .unauthorized(let failure) = gate {
            .unauthorized(failure)
        } else {
            nil
        }
    }

    /// Why a subscription is refused at once, if it is: invalid options, an undeclared purpose key, an
    /// engine shut down, access refused, or heading asked of sources none of which reports course.
    func refusal(of options: SubscriptionOptions, isShutDown: Bool, gate: AuthorizationGate) -> SubscriptionEnd? {
        if let failure = options.validationFailure { .rejected(reason: failure) }
        else if let key = options.purposeKey, !declares(purposeKey: key) { .misconfigured(.undeclaredPurposeKey(key)) }
        else if isShutDown { .shutDown }
        else if case .unauthorized(let failure) = gate { .unauthorized(failure) }
        else if options.kind == .heading && !(sourceCapabilities.providesCourse || otherSources.contains(where: \.providesCourse)) {
            .headingUnavailable
        }
        else { nil }
    }

    /// Why a monitor with `options` is refused at once, if it is: invalid options or geofence
    /// configuration (the regions' rules `geofences`), an engine shut down, or access refused.
    func refusal(ofMonitor options: GeofenceOptions, geofences: Geofences, isShutDown: Bool, gate: AuthorizationGate) -> SubscriptionEnd? {
        if let reason = geofences.refusal(of: options) { .rejected(reason: reason) }
        else if isShutDown { .shutDown }
        else if case .unauthorized(let failure) = gate { .unauthorized(failure) }
        else { nil }
    }
}
