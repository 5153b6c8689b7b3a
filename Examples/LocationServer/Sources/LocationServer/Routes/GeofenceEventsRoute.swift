import Hummingbird
import LocationEngine
import NIOCore

/// `GET /geofences/events`: every fence's transitions as server-sent events, each with its `id:`, for as
/// long as the client listens.
///
/// Events: `transition` (``GeofenceTransitionJSON``: the fence, the engine's name for the transition —
/// `determined` with the initial state, `entered`, `exited`, `dwelled`, `becameUnknown`; a crossing
/// between two sparse fixes is `entered` then `exited` — the state after it and its instant), and `end`
/// for a fence that ended (``GeofenceEndJSON``: the engine's outcome name, `cancelled` for `DELETE`).
/// Every event is stored before it is sent, under an id one more than the last.
///
/// A client that sends `Last-Event-ID` (the header, or the `lastEventId` query parameter) gets every
/// event after that id from the store, then the live ones, each once and in order, across a
/// disconnection or a restart of the server. An id older than the retention is answered `410` naming the
/// oldest id kept; one newer than any event `400`. A reader that falls behind is paged from the store;
/// if it falls behind the retention itself, the stream ends with an `end` of reason `behind_retention`
/// and the oldest id kept. On graceful shutdown the engine ends every fence (`shut_down`), and once
/// every event is sent the stream ends with an `end` without a fence, reason `shut_down`; a stream asked for
/// after that is answered `503 shut_down`. A client that disconnects only stops listening (its stream ends, even
/// one it made before another request on the same connection).
///
/// A client hears the events of its own fences (an admin every fence's); the ids it sees skip the others', and
/// after others' events a record with an id alone (which fires no event) moves its `Last-Event-ID` past them. It
/// needs permission `precise`: a fence's transitions show where the device is to the metre. A client whose
/// token is taken out of the token file, expires, or changes permission while it listens gets an `end` without
/// a fence, reason `unauthorized`, before the next events (``ClientCheck``). A client that resumes hears, of the
/// events recorded before, only those it was entitled to when each was recorded (``GrantHistory``): not a stretch
/// it was approximate, out of the token file or expired, even once it is precise again.
struct GeofenceEventsRoute {
    let registry: GeofenceRegistry
    let audit: ClientAudit
    /// Asked again before each page: a client revoked or changed while its stream is open is not sent more.
    let authenticator: ClientAuthenticator
    /// What waits on each connection: a stream ends once its client stops sending.
    let connections: ConnectionRequests
    /// Events sent per page read.
    static let pageSize = 512

    func register(on router: Router<ServerRequestContext>) {
        router.get("geofences/events") { request, context in try handle(request, context: context) }
    }

    func handle(_ request: Request, context: ServerRequestContext) throws -> Response {
        let view = try ClientView(try context.requireIdentity(), audit: audit)
        try view.requirePrecise("fences' events")
        try request.refuseBody(of: "GET /geofences/events")
        let client = view.client
        let check = try ClientCheck(authenticator, context: context)
        // Every fence has ended and every stream is closing: a new one would be an end alone.
        if registry.isShutDown { throw HTTPError.shutDown("the fences are kept for the next start; listen again then") }
        let journal = registry.journal
        let counters = registry.counters
        // Fixed before the head is sent: a client that has the head hears every later event.
        let start = try Self.resumePoint(request, journal: journal)
        // Of the events recorded before the stream opened, those the client was entitled to then.
        let judge = registry.grants.judge(for: client, through: try journal.resumePoint(after: nil))
        let connections = connections
        let channel = context.channel
        let body = ResponseBody { writer in
            counters.listenerOpened()
            defer { counters.listenerClosed() }
            // Hummingbird stops watching for the client's leaving once it sends another request on the connection;
            // the connection's watch does not.
            try await request.body.consumeWithCancellationOnInboundClose { _ in try await connections.untilClientLeaves(channel) {
                let (bell, handle) = journal.doorbellWithHandle()
                var wroteEnd = false
                // A client revoked while nothing happens: finishing its doorbell ends the wait for the next page.
                let revoked = try await check.whileAuthorized(stop: { handle.finish() }) {
                    wroteEnd = try await Self.stream(
                        from: start, bell: bell, journal: journal, judge: judge, check: check, counters: counters, to: &writer)
                }
                if let revoked, !wroteEnd {
                    let end = GeofenceEndJSON(fence: nil, reason: "unauthorized", detail: revoked)
                    try await writer.write(ServerSentEvent(name: "end", data: ServerSentEvent.json(end)).buffer)
                }
            } }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    /// Writes the events after `start` that the client hears (`judge`), page by page as `bell` rings, then an `end` when
    /// the reader fell behind the retention, the journal closed, or `check` says the client is no longer what
    /// it opened the stream as. Returns whether it wrote an `end` (not when the wait was ended under it).
    static func stream(
        from start: Int64, bell: AsyncStream<Void>, journal: GeofenceJournal, judge: GrantJudge, check: ClientCheck,
        counters: GeofenceCounters, to writer: inout any ResponseBodyWriter
    ) async throws -> Bool {
        var ringing = bell.makeAsyncIterator()
        var cursor = start
        while let page = try await journal.page(after: cursor, limit: Self.pageSize, bell: &ringing) {
            switch page {
            case .events(let page):
                let before = cursor
                cursor = page.last?.id ?? cursor
                let events = judge.hearsEverything ? page : page.filter(judge.hears)
                // Past others' events the client does not hear, an id alone (no event fires) moves the id it
                // resumes from: from its own last event, a quiet client would find it dropped by the
                // retention that other clients' events filled, and lose its events since.
                let skipped = events.last?.id != cursor && cursor > before
                if events.isEmpty && !skipped { continue }
                if let why = check.revoked() {
                    let end = GeofenceEndJSON(fence: nil, reason: "unauthorized", detail: why)
                    try await writer.write(ServerSentEvent(name: "end", data: ServerSentEvent.json(end)).buffer)
                    return true
                }
                // One write per page: a fix that decides thousands of fences is not thousands of flushes.
                var buffer = ByteBuffer()
                for event in events { event.write(to: &buffer) }
                if skipped { buffer.writeString("id: \(cursor)\n\n") }
                try await writer.write(buffer)
                let sent = ContinuousClock.now
                for case let appendedAt? in events.lazy.map(\.appendedAt) { counters.delivered(after: sent - appendedAt) }
            case .behind(let oldest):
                let end = GeofenceEndJSON(fence: nil, reason: "behind_retention", oldestEventId: oldest)
                try await writer.write(ServerSentEvent(name: "end", data: ServerSentEvent.json(end)).buffer)
                return true
            case .closed:
                let end = GeofenceEndJSON(fence: nil, reason: SubscriptionEnd.shutDown.outcome)
                try await writer.write(ServerSentEvent(name: "end", data: ServerSentEvent.json(end)).buffer)
                return true
            }
        }
        return false
    }

    /// The id the stream starts after: the request's `Last-Event-ID`, or the newest event's.
    static func resumePoint(_ request: Request, journal: GeofenceJournal) throws -> Int64 {
        let query: QueryParameters
        do throws(QueryError) {
            query = try QueryParameters(uri: request.uri, accepted: ["lastEventId"])
        } catch {
            throw error.httpError
        }
        // Both are checked, whichever is used (the header wins): a malformed one is refused, not passed over.
        func eventID(_ text: String?, named name: String) throws -> Int64? {
            guard let text else { return nil }
            // Digits only: `Int64` alone would also take `+5`.
            guard QueryNumber.isDigits(text), let id = Int64(text) else {
                throw HTTPError(.badRequest, message: "\(name): expected an event id, a whole number 0 or more (got '\(text)')")
            }
            return id
        }
        let header = try eventID(request.headers[.lastEventID], named: "Last-Event-ID")
        let parameter = try eventID(query.text("lastEventId"), named: "lastEventId")
        guard let id = header ?? parameter else { return try journal.resumePoint(after: nil) }
        do throws(GeofenceJournal.ResumeError) {
            return try journal.resumePoint(after: id)
        } catch .gone(let oldest, let kept) {
            throw HTTPError(
                .gone,
                message: "Last-Event-ID \(id): the events after it are no longer kept; "
                    + (kept ? "the oldest kept is \(oldest). " : "no event is kept; the next will be \(oldest). ")
                    + "Reconnect without Last-Event-ID and read GET /geofences for the fences' states.")
        } catch .ahead(let newest) {
            throw HTTPError(.badRequest, message: "Last-Event-ID \(id): newer than any event; the newest is \(newest)")
        }
    }
}

extension HTTPFields.Element.Name {
    /// The server-sent events' resume header.
    static let lastEventID = Self("Last-Event-ID")!
}
