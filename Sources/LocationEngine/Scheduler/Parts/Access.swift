extension SchedulerStateMachine {
    /// Where access stands: the authorization picture (the one copy of it), its open prompts and
    /// scheduled changes, temporary full accuracy, the requests waiting for either, and the throttle of
    /// fixes let through under reduced accuracy.
    struct Access: Sendable {
        /// The authorization picture, open prompts and scheduled changes.
        var timeline: AuthorizationTimeline
        /// Whether this not-determined period's one authorization request was made.
        var authorizationRequested = false
        /// Requests waiting for authorization, in submission order; ended ones are skipped lazily.
        var awaitingAuthorization: [RequestID] = []
        /// Requests that need full accuracy and wait for the answer to a temporary-full-accuracy request;
        /// ended ones are skipped lazily.
        var awaitingFullAccuracy: [RequestID] = []
        /// The waiting lists are compacted when they grow past this (requests that ended while waiting
        /// leave stale entries behind).
        var waitingListLimit = 1024
        /// Where temporary full accuracy stands in this period of reduced accuracy.
        var temporaryFullAccuracy = TemporaryFullAccuracy.notAsked
        /// When the last fix was let through under reduced accuracy (for the throttle).
        var lastCoarseFixAt: EngineInstant?

        init(picture: AuthorizationState) {
            timeline = AuthorizationTimeline(picture: picture)
        }
    }
}
