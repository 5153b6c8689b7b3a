import Hummingbird
import LocationEngine

/// The body of a `/location` response: how the one-shot ended, the fix it carried and the accuracy
/// level that fix achieved when it was delivered.
struct LocationResponse: ResponseCodable, Equatable {
    var status: String
    /// Why it ended, in words, for the statuses that have a reason (failed, unauthorized…).
    var detail: String?
    var fix: FixJSON?
    var achievedAccuracy: String?
}

/// `GET /location?accuracy=…&timeout=…`: one one-shot request per HTTP request.
///
/// `accuracy` is a level name or custom metres (with `maxAge`), default `block`; `timeout` a
/// duration, default the engine's 30 s. An ended request answers 200 with its status in the body
/// (a timeout is an answer, not a server fault), except a source failure or a shutdown (503) and an
/// authorization refusal (403).
struct LocationRoute<C: Clock> where C.Duration == Duration {
    let engine: LocationEngine<C>
    let counters: ServerCounters

    func register(on router: Router<BasicRequestContext>) {
        router.get("location") { request, _ in try await handle(request) }
    }

    func handle(_ request: Request) async throws -> EditedResponse<LocationResponse> {
        let query = QueryParameters(uri: request.uri)
        try query.rejectUnknown(allowing: ["accuracy", "maxAge", "timeout"])
        let accuracy = try query.accuracy() ?? .block
        let timeout = try query.duration("timeout") ?? LocationEngine<C>.defaultTimeout

        counters.locationStarted()
        let started = ContinuousClock.now
        var succeeded = false
        defer { counters.locationEnded(after: started.duration(to: .now), success: succeeded) }
        // Cancelling the handler's task cancels the request (and throws).
        let result = try await engine.location(accuracy: accuracy, timeout: timeout)
        succeeded = result.status == .success
        return EditedResponse(status: result.status.httpStatus, response: LocationResponse(result))
    }
}

extension LocationResponse {
    init(_ result: LocationResult) {
        status = result.status.outcome
        switch result.status {
        case .failed, .unauthorized, .misconfigured, .rejected: detail = result.status.description
        default: detail = nil
        }
        fix = result.location.map { FixJSON($0, age: result.age) }
        achievedAccuracy = result.achievedAccuracy?.description
    }
}

extension LocationStatus {
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
