import Foundation
import Hummingbird
import LocationEngine

/// `POST /geofences`, `GET /geofences`, `GET /geofences/{id}` and `DELETE /geofences/{id}`: fences the
/// engine monitors, each under the server's own ID (numbered from 1, never reused).
///
/// `POST` takes a ``GeofenceBody`` and answers 201 with the fence and a `Location` header; a bad body
/// 400 naming the field (nothing is monitored), a full server 409. `DELETE` cancels the monitor (204;
/// listeners of `/geofences/events` get an `end` with reason `cancelled`). An unknown ID is 404, an ID
/// that is not a number 400. Both answer only once the change is stored; a change the database refused
/// (a full disk) is answered 503: a fence whose creation was not stored is not monitored, and a deletion
/// not stored is retried (a `DELETE` again says when it is stored).
///
/// A fence belongs to the client that created it: a client lists, reads and deletes its own (another's
/// is 404, as if it did not exist); an admin all of them. Creating, listing and reading fences need permission
/// `precise` (a fence's state says where the device is); deleting one's own does not.
struct GeofenceRoutes<C: Clock> where C.Duration == Duration {
    let engine: LocationEngine<C>
    let registry: GeofenceRegistry
    let audit: ClientAudit

    func register(on router: Router<ServerRequestContext>) {
        router.post("geofences") { request, context in try await create(request, context: context) }
        router.get("geofences") { _, context in
            let view = try ClientView(try context.requireIdentity(), audit: audit)
            try view.requirePrecise("fences' states")
            try refuseAfterShutdown()
            return GeofenceListJSON(
                geofences: registry.fences(of: view.client).map(GeofenceJSON.init), maximum: registry.maximumFences,
                maximumPerClient: registry.maximumFencesPerClient)
        }
        router.get("geofences/:id") { _, context in
            let view = try ClientView(try context.requireIdentity(), audit: audit)
            try view.requirePrecise("fences' states")
            try refuseAfterShutdown()
            return GeofenceJSON(try ownFence(context, client: view.client))
        }
        router.delete("geofences/:id") { _, context in try await delete(context) }
    }

    /// Once the engine has shut down, the fences it ended are gone from memory but kept for the next start: a list
    /// would be empty and a fence `404`, as if deleted. Answered `503 shut_down` instead, as every request then.
    func refuseAfterShutdown() throws {
        guard registry.isShutDown else { return }
        throw HTTPError.shutDown("its fences are kept for the next start")
    }

    /// The fence of the path's `{id}`, if `client` sees it.
    /// - Throws: 404 for a fence that does not exist or is another client's; 400 for an ID that is not a number.
    func ownFence(_ context: ServerRequestContext, client: Client) throws -> GeofenceRegistry.Fence {
        guard let fence = registry.fence(try Self.id(context)), client.sees(owner: fence.owner) else { throw Self.notFound(context) }
        return fence
    }

    /// `DELETE /geofences/{id}`: the fence stops being monitored at once, and the answer waits for the deletion to be
    /// stored. One the database refused is retried with the next writes; a `DELETE` of it again — after that `503`, or
    /// while the first still waits — waits for that write (`204` once stored, `503` while it is not), rather than
    /// answer `404` for a fence a restart would bring back.
    /// Any client but one with permission `none` deletes its own fences (an approximate one too: that reveals nothing).
    func delete(_ context: ServerRequestContext) async throws -> HTTPResponse.Status {
        let client = try ClientView(try context.requireIdentity(), audit: audit).client
        let id = try Self.id(context)
        try refuseAfterShutdown()
        let sequence: UInt64
        if let fence = registry.fence(id), client.sees(owner: fence.owner), let removed = registry.remove(id) {
            engine.cancel(removed.request)
            sequence = removed.sequence
        } else if let unstored = registry.unstoredDeletion(id), client.sees(owner: unstored.owner) {
            // Deleted by an earlier `DELETE` (which may still be waiting): the same write decides this answer.
            sequence = unstored.sequence
        } else {
            throw Self.notFound(context)
        }
        do {
            try await registry.journal.stored(sequence)
        } catch {
            throw HTTPError(
                .serviceUnavailable, headers: [.retryAfter: "5"],
                message: "the deletion could not be stored yet (\(error)): the fence is no longer monitored and the write is retried; "
                    + "DELETE it again to learn when it is stored (until then a restart of the server brings the fence back)")
        }
        registry.deletionStored(id)
        return .noContent
    }

    func create(_ request: Request, context: ServerRequestContext) async throws -> EditedResponse<GeofenceJSON> {
        let view = try ClientView(try context.requireIdentity(), audit: audit)
        try view.requirePrecise("fences")
        // Not `409` for a full server, nor a fence ended at once: the fences are kept for the next start.
        try refuseAfterShutdown()
        let body: GeofenceBody
        do {
            // One byte over the limit is enough to know the body is too large.
            let bytes = try await request.body.collect(upTo: GeofenceBody.maximumBytes + 1)
            body = try GeofenceBody(json: Data(bytes.readableBytesView))
        } catch let error as GeofenceBodyError {
            throw HTTPError(.badRequest, message: error.message)
        } catch {
            throw HTTPError(.badRequest, message: "body: more than \(GeofenceBody.maximumBytes) bytes, or unreadable (\(error))")
        }
        let id: UInt64
        do throws(GeofenceRegistry.Full) {
            id = try registry.reserve(body, owner: view.client.name)
        } catch {
            throw HTTPError(
                .conflict,
                message: error.perClient
                    ? "client '\(view.client.name)' has its maximum of \(error.maximum) fences (--max-geofences-per-client): delete one first"
                    : "the server monitors its maximum of \(error.maximum) fences (--max-geofences): delete one first")
        }
        let registry = registry
        let monitor = engine.monitor(body.region, options: body.options) { _, event in registry.deliver(event, toFence: id) }
        // The engine takes the monitor on its loop: once it has, a refusal (access denied, no source) has
        // reached the fence, which is then answered as such and never stored, rather than answered 201 and
        // kept to be monitored again.
        await engine.sync()
        let sequence: UInt64
        switch registry.claim(id, request: monitor) {
        case .monitored(let stored): sequence = stored
        case .ended(let end):
            var headers = HTTPFields()
            if case .shutDown = end { headers[.retryAfter] = "\(LocationStatus.retryAfterShutdownSeconds)" }
            throw HTTPError(end.httpStatus, headers: headers, message: "the fence ended at once: \(end.outcome)")
        }
        do {
            // Withdrawn by the journal itself when its batch fails, so a retry cannot store it behind the 503.
            try await registry.journal.stored(sequence, withdrawingOnFailure: [.fenceRemoved(id)])
        } catch {
            if let request = registry.abandon(id) { engine.cancel(request) }
            throw Self.notStored("the fence", error)
        }
        let fence = registry.fence(id).map(GeofenceJSON.init) ?? GeofenceJSON(GeofenceRegistry.Fence(id: id, body: body, owner: view.client.name))
        return EditedResponse(status: .created, headers: [.location: "/geofences/\(id)"], response: fence)
    }

    /// The `{id}` of the path.
    static func id(_ context: ServerRequestContext) throws -> UInt64 {
        let text = context.parameters.get("id") ?? ""
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw HTTPError(.badRequest, message: "id: expected a fence number such as 3 (got '\(text)')")
        }
        // A number past any id the server hands out names no fence: 404, as any other unknown id.
        guard let id = UInt64(text) else { throw notFound(context) }
        return id
    }

    /// A change the database did not take: the client is not told it is kept.
    static func notStored(_ what: String, _ error: any Error) -> HTTPError {
        HTTPError(.serviceUnavailable, headers: [.retryAfter: "5"], message: "\(what) could not be stored (\(error)); nothing was acknowledged")
    }

    static func notFound(_ context: ServerRequestContext) -> HTTPError {
        HTTPError(.notFound, message: "no fence \(context.parameters.get("id") ?? ""): it was never created, was deleted, or ended")
    }
}

extension SubscriptionEnd {
    /// The HTTP status of a fence that ended as it was created.
    var httpStatus: HTTPResponse.Status {
        switch self {
        case .unauthorized, .accuracyReduced: .forbidden
        case .rejected: .badRequest
        case .misconfigured: .internalServerError
        default: .serviceUnavailable
        }
    }
}
