import Hummingbird
import LocationEngine

/// One request's client and what its permission makes of positions: the location routes ask it what to
/// request of the engine and how to answer, and it counts what was answered (``ClientAudit``).
struct ClientView: Sendable {
    let client: Client
    let audit: ClientAudit
    /// How fixes are coarsened for an `approximate` client; `nil` for a precise one.
    let approximate: ApproximateAnswers?

    /// The view of `client`, whose permission must allow positions; `answers` is the server's, shared by every
    /// route that answers positions (its gate holds the coarse fix shown last). A route that only checks the
    /// permission (the fences') may leave it out: it answers no position.
    /// - Throws: `403` for a client with permission `none` (counted).
    init(_ client: Client, audit: ClientAudit, answers: ApproximateAnswers? = nil) throws(HTTPError) {
        self.client = client
        self.audit = audit
        switch client.permission {
        case .precise: approximate = nil
        case .approximate: approximate = answers ?? ApproximateAnswers()
        case .none: throw Self.refuse(client, audit: audit, "client '\(client.name)' has permission none: it is given no position")
        }
    }

    /// What to ask the engine for when the client asks for `accuracy`.
    func engineAccuracy(_ accuracy: LocationAccuracy) -> LocationAccuracy {
        approximate?.engineAccuracy(for: accuracy) ?? accuracy
    }

    /// The subscription to ask the engine for.
    /// - Throws: `403` for a heading subscription of an approximate client (a course is finer than the grid);
    ///   `400` for one whose `maxUpdates` its duration would end first once its updates are spaced as an
    ///   approximate client's are (the query's own check saw only the interval asked for).
    func engineOptions(_ options: SubscriptionOptions) throws(HTTPError) -> SubscriptionOptions {
        guard let approximate else { return options }
        if options.kind == .heading {
            throw Self.refuse(client, audit: audit, "client '\(client.name)' has permission approximate: a heading needs precise")
        }
        let spaced = approximate.options(options)
        if let duration = spaced.duration, let updates = spaced.maximumUpdates, updates > 1,
            UpdatesQuery.endsFirst(duration, interval: spaced.minimumInterval, updates: updates)
        {
            let minutes = Int(spaced.minimumInterval.components.seconds / 60)
            throw QueryError(
                parameter: "maxUpdates",
                "maxUpdates=\(updates) cannot be reached: client '\(client.name)' has permission approximate and gets at most one update "
                    + "per \(minutes) minutes, so the duration ends the subscription first"
            ).httpError
        }
        return spaced
    }

    /// Refuses what only a precise client may do (`what`: "fences").
    /// - Throws: `403` unless the client is precise.
    func requirePrecise(_ what: String) throws(HTTPError) {
        guard approximate != nil else { return }
        throw Self.refuse(
            client, audit: audit,
            "client '\(client.name)' has permission approximate: \(what) need precise (a fence's transitions show when its boundary was crossed, to the metre)")
    }

    /// The answer at `now` of a one-shot the client asked for `asked`, counted.
    func answer(_ result: LocationResult, asked: LocationAccuracy, now: EngineInstant) -> LocationResponse {
        let seen = approximate?.result(result, asked: asked, now: now) ?? result
        var response = LocationResponse(seen)
        if approximate != nil { response.fix?.coarsened = true }
        audit.answered(client, route: "location", level: seen.location == nil ? .noFix : AccuracyLevelName(fixReaching: seen.achievedAccuracy))
        return response
    }

    /// A stream's event, sent at `now`, as the client sees it, counted when it carries a fix.
    func event(_ event: SubscriptionEvent, now: EngineInstant) -> ServerSentEvent {
        let seen = approximate?.event(event, now: now) ?? event
        switch seen {
        case .location(let update): audit.answered(client, route: "updates", level: AccuracyLevelName(fixReaching: update.achievedAccuracy))
        case .heading(let heading):
            let level = AccuracyLevel.achieved(horizontalAccuracy: heading.location.horizontalAccuracy, age: .zero)
            audit.answered(client, route: "updates", level: AccuracyLevelName(fixReaching: level))
        case .sourceError, .ended: break
        }
        return ServerSentEvent(seen, coarsened: approximate != nil)
    }

    /// A 403 for `client`, counted.
    static func refuse(_ client: Client, audit: ClientAudit, _ message: String) -> HTTPError {
        audit.refused(client, status: 403)
        return HTTPError(.forbidden, message: message)
    }
}

extension Client {
    /// Whether the client sees what `owner` owns (a fence, its events): its own, or all for an admin.
    func sees(owner: String?) -> Bool { isAdmin || owner == name }
}
