import Hummingbird

/// Answers a request that no route takes — an unknown path, or a known path with another method — with a
/// 404 whose JSON body names the routes there are, like every other error of the server, where Hummingbird
/// would send an empty 404. Added after the routes, it wraps only the router's not-found responder.
struct UnknownRouteMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The server's routes, as a 404 lists them.
    static var routes: String {
        "GET /location, GET /updates, POST /geofences, GET /geofences, GET /geofences/{id}, DELETE /geofences/{id}, "
            + "GET /geofences/events, GET /metrics, GET /health"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && error.body == nil {
            throw HTTPError(.notFound, message: "no route \(request.method) \(request.uri.path); the server answers \(Self.routes)")
        }
    }
}
