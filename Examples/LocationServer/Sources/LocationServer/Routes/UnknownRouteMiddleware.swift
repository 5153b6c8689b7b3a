import Hummingbird

/// Answers a request that no route takes, like every other error of the server, with a JSON body, where
/// Hummingbird would send an empty 404: a known path asked with another method is 405 with `Allow` naming the
/// methods it takes; an unknown path is 404 naming the routes there are. Added after the routes, it wraps only
/// the router's not-found responder.
struct UnknownRouteMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The server's routes: each path (`{id}` for a fence's ID) with the methods it takes.
    static var table: [(path: String, methods: [HTTPRequest.Method])] { [
        ("/location", [.get]), ("/updates", [.get]), ("/geofences", [.get, .post]), ("/geofences/{id}", [.get, .delete]),
        ("/geofences/events", [.get]), ("/metrics", [.get]), ("/health", [.get]),
    ] }

    /// The server's routes, as a 404 lists them.
    static var routes: String {
        table.flatMap { route in route.methods.map { "\($0) \(route.path)" } }.joined(separator: ", ")
    }

    /// The methods a known path takes, or `nil` for a path the server does not have.
    static func methods(of path: String) -> [HTTPRequest.Method]? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        let exact = table.first { $0.path.split(separator: "/") == parts }
        let fence = table.first { $0.path == "/geofences/{id}" && parts.count == 2 && parts[0] == "geofences" }
        return (exact ?? fence)?.methods
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && error.body == nil {
            let path = request.uri.path
            if let methods = Self.methods(of: path), !methods.contains(request.method) {
                let allowed = methods.map(\.rawValue).joined(separator: ", ")
                throw HTTPError(
                    .methodNotAllowed, headers: [.allow: allowed],
                    message: "\(path) answers \(allowed), not \(request.method)")
            }
            throw HTTPError(.notFound, message: "no route \(request.method) \(path); the server answers \(Self.routes)")
        }
    }
}
