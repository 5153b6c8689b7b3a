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

    /// Why a subscription (a monitor of `region`, under the regions' rules `geofences`) is refused at
    /// once, if it is: invalid options or geofence configuration, an undeclared purpose key, an engine shut
    /// down, access refused, or heading asked of sources none of which reports course.
    func refusal(
        of options: SubscriptionOptions, region: (GeofenceRegion, GeofenceOptions)?, geofences: Geofences, isShutDown: Bool,
        gate: AuthorizationGate
    ) -> SubscriptionEnd? {
        if let region, let reason = geofences.refusal(of: region.1) { .rejected(reason: reason) }
        else if let failure = options.validationFailure { .rejected(reason: failure) }
        else if let key = options.purposeKey, !declares(purposeKey: key) { .misconfigured(.undeclaredPurposeKey(key)) }
        else if isShutDown { .shutDown }
        else if case .unauthorized(let failure) = gate { .unauthorized(failure) }
        else if options.kind == .heading && !(sourceCapabilities.providesCourse || otherSources.contains(where: \.providesCourse)) {
            .headingUnavailable
        }
        else { nil }
    }
}
