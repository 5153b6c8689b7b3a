import Hummingbird
import NIOConcurrencyHelpers

/// Answers a client that already has its maximum of requests open with `429`, before any work is done for it.
///
/// A request is open from its arrival until its answer is written: a `/location` for as long as it waits for its
/// fix, a stream for as long as it is sent. The rate limit (``RateLimitMiddleware``) bounds how fast a client asks;
/// this bounds how much it holds at once — under the rate limit alone, a client asking slowly with long timeouts
/// and streams it never closes would pile up open requests for as long as it liked. After ``ClientAuthenticator``:
/// the limit is per client.
struct OpenRequestLimitMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    /// The most requests one client has open at once.
    let maximum: Int
    let openRequests: OpenRequests
    let audit: ClientAudit

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let client = context.identity else { return try await next(request, context) }
        guard let place = openRequests.open(client.name, maximum: maximum) else {
            audit.refused(client, status: 429)
            throw HTTPError(
                .tooManyRequests, headers: [.retryAfter: "1"],
                message: "client '\(client.name)' has \(maximum) requests open, its limit: close a stream, or wait for an answer, first")
        }
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            place.close()
            throw error
        }
        // The place is held while the answer is written: a stream is open for as long as it is sent. An answer the
        // server drops unwritten (its connection gone) gives the place back as it is released.
        let body = response.body
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            defer { place.close() }
            try await body.write(writer)
        }
        return response
    }
}

/// How many requests each client has open, each held by an ``OpenRequest``.
final class OpenRequests: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])

    /// A place for one more request of `client`; `nil` when it has `maximum` open.
    /// - Complexity: O(1) amortised.
    func open(_ client: String, maximum: Int) -> OpenRequest? {
        let admitted = counts.withLockedValue { counts in
            let open = counts[client, default: 0]
            guard open < maximum else { return false }
            counts[client] = open + 1
            return true
        }
        return admitted ? OpenRequest(client: client, in: self) : nil
    }

    /// The requests `client` has open.
    func count(of client: String) -> Int { counts.withLockedValue { $0[client, default: 0] } }

    /// One request of `client` is no longer open; a client with none is forgotten.
    fileprivate func closed(_ client: String) {
        counts.withLockedValue { counts in
            let open = counts[client, default: 0] - 1
            counts[client] = open > 0 ? open : nil
        }
    }
}

/// One open request's place: given back once, by ``close()`` when its answer has been written or by its release,
/// whichever comes first.
final class OpenRequest: Sendable {
    private let client: String
    private let requests: OpenRequests
    private let isClosed = NIOLockedValueBox(false)

    fileprivate init(client: String, in requests: OpenRequests) {
        self.client = client
        self.requests = requests
    }

    /// Gives the place back (again: nothing).
    func close() {
        let first = isClosed.withLockedValue { closed in
            defer { closed = true }
            return !closed
        }
        if first { requests.closed(client) }
    }

    deinit { close() }
}
