import Hummingbird
import NIOConcurrencyHelpers

/// Whether a stream's client is still the one it opened as. A stream outlives the check at its start: a token
/// taken out of the token file (read again on `SIGHUP`), one whose `expires` has passed, or a client whose
/// permission changed must not go on hearing positions as it was. Streams ask before each event they send, and
/// (``whileAuthorized(stop:_:)``) each time the token file is read again and when the token expires, and end
/// with reason `unauthorized` when the answer is no (the client may reconnect as what it is now).
///
/// Asking costs what a request's own check costs, without reading the request again: a hash lookup of the
/// token (or the user) in the current token file.
struct ClientCheck: Sendable {
    let authenticator: ClientAuthenticator
    /// What named the client when the stream opened.
    let credential: ClientCredential
    /// The client the stream opened as.
    let client: Client

    /// The check of a stream `credential` opened as `client`.
    init(_ authenticator: ClientAuthenticator, credential: ClientCredential, client: Client) {
        self.authenticator = authenticator
        self.credential = credential
        self.client = client
    }

    /// The check of a stream whose request ``ClientAuthenticator`` named `context`'s client.
    /// - Throws: `401` when it named none (a route that needs no client has no stream).
    init(_ authenticator: ClientAuthenticator, context: ServerRequestContext) throws {
        guard let credential = context.credential, let client = context.identity else {
            throw ClientAuthenticator.unauthorized("the request names no client")
        }
        self.init(authenticator, credential: credential, client: client)
    }

    /// Runs `body`, a stream, while its client is what it opened as, and returns why it no longer is, or `nil`
    /// when `body` returned first. A stream asks before each event it sends; this also ends a quiet one (a
    /// subscription whose device does not move, fences nobody crosses), which would otherwise go on running the
    /// source for a client revoked: woken when the token file is read again and when the client's token expires,
    /// it calls `stop` (which makes `body` return) once the answer is no.
    func whileAuthorized(stop: @escaping @Sendable () -> Void, _ body: () async throws -> Void) async throws -> String? {
        guard case .tokens = authenticator.clients.mode else {
            // Without a token file a client is what its connection is: nothing revokes it while the stream runs.
            try await body()
            return nil
        }
        let why = NIOLockedValueBox<String?>(nil)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                guard let reason = await revocation() else { return }
                why.withLockedValue { $0 = reason }
                stop()
            }
            defer { group.cancelAll() }
            try await body()
        }
        return why.withLockedValue { $0 }
    }

    /// Waits for `body`'s answer (a one-shot's result) while the client is what it asked as: the answer may take up
    /// to a day, and a client revoked meanwhile must not keep the source running for it. `stop` (which makes `body`
    /// throw, as cancelling the one-shot does) is called once it no longer is.
    /// - Throws: `401` when the client was revoked before the answer could go, else what `body` throws.
    ///
    /// Cheaper than a stream's watch, as a cached answer comes in tens of microseconds: no task of its own, one
    /// entry in the token file's table of watchers, and a timer only for a token that expires — set again at each
    /// reading of the file, which may give the token an expiry, or move it.
    func answerWhileAuthorized<Answer: Sendable>(stop: @escaping @Sendable () -> Void, _ body: () async throws -> Answer) async throws -> Answer {
        var watch: Int?
        // The timer, and whether the answer has gone (no timer is set after that).
        let expiry = NIOLockedValueBox<(timer: Task<Void, Never>?, over: Bool)>((nil, false))
        let setTimer: @Sendable () -> Void = { [self] in
            let expires = (try? authenticator.client(credential))?.expires != nil
            expiry.withLockedValue { expiry in
                expiry.timer?.cancel()
                expiry.timer = expires && !expiry.over ? Task { await stopAtExpiry(stop) } : nil
            }
        }
        if case .tokens = authenticator.clients.mode {
            watch = authenticator.clients.watch { [self] in if revoked() != nil { stop() } else { setTimer() } }
            // Revoked before the watch began.
            if revoked() != nil { stop() }
            setTimer()
        }
        defer {
            if let watch { authenticator.clients.unwatch(watch) }
            expiry.withLockedValue { expiry in
                expiry.over = true
                expiry.timer?.cancel()
            }
        }
        let answer: Answer
        do {
            answer = try await body()
        } catch {
            if let why = revoked() { throw ClientAuthenticator.unauthorized(why) }
            throw error
        }
        // Checked again when the answer goes: else no fix, 401.
        if let why = revoked() { throw ClientAuthenticator.unauthorized(why) }
        return answer
    }

    /// Calls `stop` once the client's token has expired (a reading of the file may move the expiry: it is looked
    /// up again after each sleep, slept in steps of at most a day); returns at once when cancelled.
    private func stopAtExpiry(_ stop: @Sendable () -> Void) async {
        while !Task.isCancelled {
            if revoked() != nil { return stop() }
            guard let step = stepTowardsExpiry() else { return }
            guard (try? await authenticator.sleep(step)) != nil else { return }
        }
    }

    /// Waits until the client is no longer what the stream opened as and returns why; `nil` once cancelled.
    private func revocation() async -> String? {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let key = authenticator.clients.watch { wake.yield() }
        // The wake-up at the token's expiry, set again after each look (a reading of the file may move it).
        var timer: Task<Void, Never>?
        defer {
            timer?.cancel()
            authenticator.clients.unwatch(key)
        }
        var woken = wakes.makeAsyncIterator()
        repeat {
            if let why = revoked() { return why }
            timer?.cancel()
            timer = nil
            if let step = stepTowardsExpiry() {
                let sleep = authenticator.sleep
                timer = Task {
                    guard (try? await sleep(step)) != nil else { return }
                    wake.yield()
                }
            }
        } while await woken.next() != nil && !Task.isCancelled
        return nil
    }

    /// How long to sleep before looking at the client's token again: until it expires, at most a day (so that a far
    /// expiry is no overflow; a step's end looks again); `nil` for a token that does not expire.
    private func stepTowardsExpiry() -> Duration? {
        guard let expires = (try? authenticator.client(credential))?.expires else { return nil }
        let seconds = min(86_400, max(0, expires.timeIntervalSince(authenticator.now())))
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// Why the stream must end, or `nil` while its credential names the client it opened as.
    func revoked() -> String? {
        do {
            let now = try authenticator.client(credential)
            // A later `expires` (a rotation) changes nothing the stream was opened with; a passed one throws above.
            if now.name == client.name, now.permission == client.permission, now.isAdmin == client.isAdmin { return nil }
            return "client '\(client.name)' changed in the token file (now \(now.permission.rawValue)\(now.isAdmin ? ", admin" : "")): reconnect"
        } catch let error as HTTPError {
            return error.body ?? "\(error.status)"
        } catch {
            return "\(error)"
        }
    }
}
