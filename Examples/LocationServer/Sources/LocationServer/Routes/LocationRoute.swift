import Hummingbird
import LocationEngine

/// The body of a `/location` response: how the one-shot ended, the fix it carried and the accuracy
/// level that fix achieved when it was delivered.
struct LocationResponse: ResponseCodable, Equatable {
    var status: String
    /// Why it ended, in words, for the statuses that have a reason (failed, unauthorized…).
    var detail: String?
    /// Why a request that timed out got nothing better: `no_fix`, `acquiring`, `accuracy_not_reached`, or a
    /// source's own error code (`geoclue.agent`…), with a message a person can act on.
    var reason: ReasonJSON?
    var fix: FixJSON?
    var achievedAccuracy: String?
    /// What held `achievedAccuracy` where it is: `radius` (the fix's accuracy radius) or `age` (the fix is
    /// too old for the finer level its radius meets; each level has a maximum age).
    var achievedAccuracyLimitedBy: String?
}

/// Why a request ended without what it asked for (``EndingReason``).
struct ReasonJSON: Codable, Equatable {
    var code: String
    var message: String
}

/// `GET /location?accuracy=…&maxAge=…&timeout=…`: one one-shot request per HTTP request.
///
/// `accuracy` is a level name or custom metres, default `block`; `maxAge` the oldest a fix may be
/// (default: the level's own, 60 s for custom metres); `timeout` a duration, default 30 s. An ended
/// request answers 200 with its status in the body (a timeout is an answer, not a server fault),
/// except a source failure or a shutdown (503; a shutdown with `Retry-After`) and an authorization
/// refusal (403). A client with permission `none` is refused (403); an `approximate` one gets the fix
/// coarsened (``ClientView``). A client whose token was taken out, expired or changed permission while the
/// request waited is answered `401` without the fix. A client that disconnects cancels its request at once
/// (``ConnectionRequests``).
struct LocationRoute<C: Clock> where C.Duration == Duration {
    let engine: LocationEngine<C>
    let counters: ServerCounters
    let audit: ClientAudit
    /// Asked again once the engine answers: a request may wait up to a day, through a token taken out of the
    /// file, expired or given another permission.
    let authenticator: ClientAuthenticator
    /// What approximate clients are shown, for the whole server.
    let approximateAnswers: ApproximateAnswers
    /// The requests waiting on each connection: cancelled once their client stops sending.
    let connections: ConnectionRequests

    func register(on router: Router<ServerRequestContext>) {
        router.get("location") { request, context in try await handle(request, context: context) }
    }

    func handle(_ request: Request, context: ServerRequestContext) async throws -> EditedResponse<LocationResponse> {
        let view = try ClientView(try context.requireIdentity(), audit: audit, answers: approximateAnswers)
        let query: LocationQuery
        do throws(QueryError) {
            query = try LocationQuery(QueryParameters(uri: request.uri, accepted: LocationQuery.accepted))
        } catch {
            throw error.httpError
        }

        counters.locationStarted()
        let started = ContinuousClock.now
        var succeeded = false
        defer { counters.locationEnded(after: started.duration(to: .now), success: succeeded) }
        // The client that asked must still be what it asked as, while it waits (revoked, its request is cancelled)
        // and when the answer goes: else no fix, 401.
        let check = try ClientCheck(authenticator, context: context)
        // Its connection closing, or the handler's task cancelled, cancels the request (and throws).
        let pending = engine.locationRequest(accuracy: view.engineAccuracy(query.accuracy), timeout: query.timeout)
        let watch = connections.began(pending.id, on: context.channel)
        defer { connections.end(watch) }
        let result = try await check.answerWhileAuthorized(stop: { engine.cancel(pending.id) }) { try await pending.result() }
        succeeded = result.status == .success
        var headers = HTTPFields()
        if result.status == .shutDown { headers[.retryAfter] = "\(LocationStatus.retryAfterShutdownSeconds)" }
        let response = view.answer(result, asked: query.accuracy, now: engine.currentInstant())
        return EditedResponse(status: result.status.httpStatus, headers: headers, response: response)
    }
}

extension LocationResponse {
    init(_ result: LocationResult) {
        status = result.status.outcome
        switch result.status {
        case .failed, .unauthorized, .misconfigured, .rejected: detail = result.status.description
        default: detail = nil
        }
        reason = result.reason.map { ReasonJSON(code: $0.code, message: $0.message) }
        fix = result.location.map { FixJSON($0, age: result.age) }
        achievedAccuracy = result.achievedAccuracy?.description
        if let location = result.location, let achieved = result.achievedAccuracy {
            let byRadius = AccuracyLevel.achieved(horizontalAccuracy: location.horizontalAccuracy, age: .zero)
            achievedAccuracyLimitedBy = byRadius.map { $0 > achieved } == true ? "age" : "radius"
        }
    }
}

extension LocationStatus {
    /// The `Retry-After` of a request ended by the server's shutdown: by then a restarted server
    /// (or another one behind the same address) can answer.
    static let retryAfterShutdownSeconds = 5

    /// The HTTP status a one-shot's ending is answered with.
    var httpStatus: HTTPResponse.Status {
        switch self {
        case .success, .timedOut, .forceCompleted, .accuracyReduced: .ok
        case .unauthorized: .forbidden
        case .rejected: .badRequest
        case .failed, .shutDown: .serviceUnavailable
        case .misconfigured: .internalServerError
        }
    }
}
