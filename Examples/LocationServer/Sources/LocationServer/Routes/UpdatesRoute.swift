import Foundation
import Hummingbird
import LocationEngine
import ServiceLifecycle

/// `GET /updates?…`: a subscription streamed as server-sent events.
///
/// Parameters: `kind` (`standard`, `significant`, `passive`, `heading`), `accuracy` (+ `maxAge`),
/// `distance` (metres), `interval` and `duration` (durations), `maxUpdates`. Events: `location`,
/// `heading` and `error` (a transient source error; the stream goes on), then one `end` with the
/// reason when the subscription ends by itself. The subscription is cancelled when the client
/// disconnects, and when the server shuts down gracefully.
struct UpdatesRoute<C: Clock> where C.Duration == Duration {
    let engine: LocationEngine<C>
    let counters: ServerCounters

    func register(on router: Router<BasicRequestContext>) {
        router.get("updates") { request, _ in try handle(request) }
    }

    func handle(_ request: Request) throws -> Response {
        let options = try Self.options(QueryParameters(uri: request.uri))
        if let failure = options.validationFailure { throw HTTPError(.badRequest, message: failure) }
        let engine = engine
        let counters = counters
        let body = ResponseBody { writer in
            counters.streamOpened()
            defer { counters.streamClosed() }
            // Leaving this closure (client gone, shutdown or the subscription's end) leaves the
            // sequence's loop, which cancels the subscription.
            let updates = engine.updates(options)
            try await request.body.consumeWithCancellationOnInboundClose { _ in
                try await withGracefulShutdownHandler {
                    try await Self.stream(updates, to: &writer)
                } onGracefulShutdown: {
                    engine.cancel(updates.id)
                }
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
            body: body)
    }

    static func stream(_ updates: LocationUpdates, to writer: inout any ResponseBodyWriter) async throws {
        do {
            for try await event in updates {
                try await writer.write(ServerSentEvent(event).buffer)
            }
            try await writer.write(ServerSentEvent(name: "end", data: #"{"reason":"finished"}"#).buffer)
        } catch let ended as SubscriptionEndedError {
            try await writer.write(ServerSentEvent(.ended(ended.reason)).buffer)
        }
    }

    static func options(_ query: QueryParameters) throws -> SubscriptionOptions {
        try query.rejectUnknown(allowing: ["kind", "accuracy", "maxAge", "distance", "interval", "duration", "maxUpdates"])
        let kind: SubscriptionKind
        switch query.text("kind") ?? "standard" {
        case "standard": kind = .standard
        case "significant": kind = .significantChange
        case "passive": kind = .passive
        case "heading": kind = .heading
        case let other:
            throw HTTPError(.badRequest, message: "kind=\(other): expected standard, significant, passive or heading")
        }
        return SubscriptionOptions(
            kind: kind,
            accuracy: try query.accuracy(),
            distanceFilter: try query.number("distance") ?? 0,
            minimumInterval: try query.duration("interval") ?? .zero,
            maximumUpdates: try query.count("maxUpdates"),
            duration: try query.duration("duration"))
    }
}
