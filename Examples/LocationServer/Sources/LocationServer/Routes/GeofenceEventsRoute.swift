import Hummingbird
import LocationEngine

/// `GET /geofences/events`: every fence's transitions as server-sent events, for as long as the client
/// listens.
///
/// Events: `transition` (``GeofenceTransitionJSON``: the fence, the engine's name for the transition —
/// `determined` with the initial state, `entered`, `exited`, `dwelled`, `becameUnknown`; a crossing
/// between two sparse fixes is `entered` then `exited` — the state after it and its instant), and `end`
/// for a fence that ended (``GeofenceEndJSON``: the engine's outcome name, `cancelled` for `DELETE`). On
/// graceful shutdown the engine ends every fence (`shut_down`), then the stream ends with an `end`
/// without a fence, reason `shut_down`. A client that disconnects only stops listening. A listener that
/// reads slower than events come keeps the newest ``GeofenceRegistry/listenerBuffer`` of them.
struct GeofenceEventsRoute {
    let registry: GeofenceRegistry

    func register(on router: Router<BasicRequestContext>) {
        router.get("geofences/events") { request, _ in handle(request) }
    }

    func handle(_ request: Request) -> Response {
        // Listening before the head is sent: a client that has the head hears every later transition.
        let events = registry.listen()
        let body = ResponseBody { writer in
            try await request.body.consumeWithCancellationOnInboundClose { _ in
                for await event in events { try await writer.write(ServerSentEvent(event).buffer) }
                // The registry finishes a listener's events only when the server shuts down.
                guard !Task.isCancelled else { return }
                let end = GeofenceEndJSON(fence: nil, reason: SubscriptionEnd.shutDown.outcome)
                try await writer.write(ServerSentEvent(name: "end", data: ServerSentEvent.json(end)).buffer)
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }
}
