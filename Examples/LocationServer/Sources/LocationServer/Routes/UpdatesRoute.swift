import Foundation
import Hummingbird
import LocationEngine
import NIOConcurrencyHelpers
import ServiceLifecycle

/// `GET /updates?…`: a subscription streamed as server-sent events.
///
/// Parameters: `kind` (`standard`, `significant`, `passive`, `heading`), `accuracy` (+ `maxAge`),
/// `distance` (metres), `interval` and `duration` (durations), `maxUpdates`. Events: `location`,
/// `heading` and `error` (a transient source error; the stream goes on), then one `end` whose
/// `reason` is the engine's outcome name for the ending (`maximum_updates_reached`,
/// `duration_elapsed`, `shut_down`, `failed`…), with the number of updates delivered and a `detail`
/// saying why when the end was abnormal or the duration elapsed with nothing delivered. The subscription is
/// cancelled when the client disconnects; one asked for once the engine has shut down is answered
/// `503 shut_down`. A client with permission `none` is refused (403); an
/// `approximate` one gets every fix coarsened and at most one per the reduced-accuracy policy's interval
/// (``ClientView``), and no heading (403). A client whose token is taken out of the token file, expires, or
/// changes permission while its stream is open gets an `end` of reason `unauthorized` before the next event
/// (``ClientCheck``).
struct UpdatesRoute<C: Clock> where C.Duration == Duration {
    let engine: LocationEngine<C>
    let counters: ServerCounters
    let audit: ClientAudit
    /// Asked again before each event: a client revoked or changed while its stream is open is not sent more.
    let authenticator: ClientAuthenticator
    /// What approximate clients are shown, for the whole server.
    let approximateAnswers: ApproximateAnswers
    /// What waits on each connection: a stream ends once its client stops sending.
    let connections: ConnectionRequests

    func register(on router: Router<ServerRequestContext>) {
        router.get("updates") { request, context in try await handle(request, context: context) }
    }

    func handle(_ request: Request, context: ServerRequestContext) async throws -> Response {
        let view = try ClientView(try context.requireIdentity(), audit: audit, answers: approximateAnswers)
        let check = try ClientCheck(authenticator, context: context)
        try request.refuseBody(of: "GET /updates")
        let query: UpdatesQuery
        do throws(QueryError) {
            query = try UpdatesQuery(QueryParameters(uri: request.uri, accepted: UpdatesQuery.accepted))
        } catch {
            throw error.httpError
        }
        let options = try view.engineOptions(query.options)
        // The subscription would end before its first event: answered as the one-shots are then.
        if await engine.isShutDown { throw HTTPError.shutDown("subscribe again once it is back") }
        let engine = engine
        let counters = counters
        let connections = connections
        let channel = context.channel
        let body = ResponseBody { writer in
            counters.streamOpened()
            defer { counters.streamClosed() }
            let events = SubscriptionEvents(engine, options: options)
            // Leaving this closure for any reason (client gone, write failed) cancels the
            // subscription; once it has ended, that is a no-op.
            defer { events.cancel() }
            let shuttingDown = ShutdownFlag()
            try await request.body.consumeWithCancellationOnInboundClose { _ in
                // Hummingbird stops watching for the client's leaving once it sends another request on the
                // connection; the connection's watch does not.
                try await connections.untilClientLeaves(channel) {
                    // Normally the engine shuts down first and ends the stream with `shut_down`; this
                    // covers a server shut down on its own.
                    try await withGracefulShutdownHandler {
                        var sent = (wroteEnd: false, updates: 0)
                        let revoked = try await check.whileAuthorized(stop: { events.cancel() }) {
                            sent = try await Self.stream(
                                events, query: query, view: view, check: check, engine: engine, shuttingDown: shuttingDown, to: &writer)
                        }
                        if let revoked, !sent.wroteEnd {
                            try await writer.write(ServerSentEvent(EndJSON(reason: "unauthorized", updates: sent.updates, detail: revoked)).buffer)
                        }
                    } onGracefulShutdown: {
                        shuttingDown.set()
                        events.cancel()
                    }
                }
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: body)
    }

    /// Writes the subscription's events as `view`'s client sees them, then its `end`: the subscription's, or
    /// `unauthorized` once `check` says the client is no longer what it opened the stream as. Returns whether
    /// it wrote an `end` (not when the events were cancelled under it) and how many updates it sent.
    @discardableResult
    static func stream(
        _ events: SubscriptionEvents, query: UpdatesQuery, view: ClientView, check: ClientCheck, engine: LocationEngine<C>,
        shuttingDown: ShutdownFlag, to writer: inout any ResponseBodyWriter
    ) async throws -> (wroteEnd: Bool, updates: Int) {
        var updates = 0
        var end: EndJSON?
        for await delivered in events {
            let event = delivered.event
            let ending = if case .ended = event { true } else { false }
            if !ending, let why = check.revoked() {
                // The caller cancels the subscription once this returns.
                try await writer.write(ServerSentEvent(EndJSON(reason: "unauthorized", updates: updates, detail: why)).buffer)
                return (true, updates)
            }
            switch event {
            case .location, .heading:
                updates += 1
            case .sourceError:
                break
            case .ended(let reason):
                end = EndJSON(reason, updates: updates)
                if updates == 0, reason == .durationElapsed {
                    // A fix arrived while the stream ran (it ran its whole duration): the last known is younger.
                    let last = await engine.lastKnownLocation()
                    let known = last?.location != nil && (last?.age ?? .zero) < (query.options.duration ?? .zero)
                    end?.detail = Self.whyNothing(query, known: known, reason: await engine.whyNoAnswer(), approximate: view.approximate != nil)
                }
                let skipped = events.skipped
                if skipped > 0 { end?.skipped = skipped }
            }
            try await writer.write(end.map { ServerSentEvent($0) }?.buffer ?? view.event(event, now: delivered.at).buffer)
        }
        if end == nil, shuttingDown.isSet {
            try await writer.write(ServerSentEvent(EndJSON(.shutDown, updates: updates)).buffer)
            return (true, updates)
        }
        return (end != nil, updates)
    }

    /// Why a subscription ended without delivering anything: a fix arrived while it ran (`known`), but none
    /// passing the filters; or none arrived, and the engine says why (`reason`) — but not to an approximate
    /// client, whose answers never name a measured radius.
    static func whyNothing(_ query: UpdatesQuery, known: Bool, reason: EndingReason, approximate: Bool) -> String {
        let filters = query.options.accuracy.map { "accuracy \($0)" } ?? "its filters"
        guard !known else { return "no fix passing \(filters) arrived while the subscription ran" }
        return "no fix arrived before the end\(approximate ? "" : " (\(reason.message))"); "
            + "a subscription gets the fixes that arrive while it runs, not the last known one"
    }
}

/// Set once when the server shuts down while a stream is open.
final class ShutdownFlag: Sendable {
    private let value = NIOLockedValueBox(false)
    func set() { value.withLockedValue { $0 = true } }
    var isSet: Bool { value.withLockedValue { $0 } }
}
