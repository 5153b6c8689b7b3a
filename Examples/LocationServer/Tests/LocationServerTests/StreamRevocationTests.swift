import Foundation
import Hummingbird
import HummingbirdTesting
import LocationEngine
import NIOConcurrencyHelpers
import Testing

@testable import LocationServer

/// A stream asks again before each event whether its client is still what it opened as: the token file read
/// again (as on `SIGHUP`) with the token gone or its permission changed ends the stream, `unauthorized`.
@Suite("Streams of a client revoked or changed while they run")
struct StreamRevocationTests {
    static let token = ClientTestSupport.tokens["fleet"]!

    /// A token file at a fresh path holding `text`, the directory that reads it, and a way to write it again.
    static func withTokenFile(_ text: String, _ body: (ClientDirectory, @escaping @Sendable (String) throws -> Void) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("location-server-tokens-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let directory = try ClientDirectory.tokens(path: path, logger: ClientTestSupport.silent)
        try await body(directory) { try $0.write(toFile: path, atomically: true, encoding: .utf8) }
    }

    @Test("an /updates stream whose client becomes approximate ends at the next fix, unauthorized, saying so", .timeLimit(.minutes(1)))
    func updatesStreamOfAChangedClient() async throws {
        try await Self.withTokenFile("\(Self.token) fleet precise\n") { directory, rewrite in
            let server = try TestServer(clients: directory)
            try await server.application.test(.router) { client in
                async let stream = ClientTestSupport.execute("/updates", as: "fleet", with: client)
                await server.waitUntilPending(subscriptions: 1)
                try rewrite("\(Self.token) fleet approximate\n")
                #expect(directory.reload() == nil)
                server.source.emit(TestServer.fix(metres: 5))
                await server.engine.sync(advancingBy: .seconds(1))
                let events = GeofenceEventsTests.events(try await stream.body)
                #expect(events.map(\.name) == ["end"], "\(events)")
                let end = try JSONDecoder().decode(EndJSON.self, from: Data(events.last!.data.utf8))
                #expect(end.reason == "unauthorized" && end.updates == 0)
                #expect(end.detail?.contains("now approximate") == true, "\(String(describing: end.detail))")
                await server.waitUntil { $0.activeSubscriptions == 0 }
            }
        }
    }

    @Test("a quiet /updates stream (no fix comes) ends unauthorized as soon as the token file read again takes its token out, its subscription cancelled", .timeLimit(.minutes(1)))
    func quietUpdatesStreamOfARevokedToken() async throws {
        try await Self.withTokenFile("\(Self.token) fleet precise\n") { directory, rewrite in
            let server = try TestServer(clients: directory)
            try await server.application.test(.router) { client in
                async let stream = ClientTestSupport.execute("/updates", as: "fleet", with: client)
                await server.waitUntilPending(subscriptions: 1)
                try rewrite("\(ClientTestSupport.tokens["ops"]!) ops precise admin\n")
                #expect(directory.reload() == nil)
                let events = GeofenceEventsTests.events(try await stream.body)
                #expect(events.map(\.name) == ["end"], "\(events)")
                let end = try JSONDecoder().decode(EndJSON.self, from: Data(events.last!.data.utf8))
                #expect(end.reason == "unauthorized" && end.updates == 0 && end.detail == "unknown token", "\(end)")
                await server.waitUntil { $0.activeSubscriptions == 0 }
            }
        }
    }

    @Test("a quiet /geofences/events stream (no fence crossed) ends unauthorized as soon as the token file read again takes its token out", .timeLimit(.minutes(1)))
    func quietFenceEventsOfARevokedToken() async throws {
        try await Self.withTokenFile("\(Self.token) fleet precise\n") { directory, rewrite in
            let server = try TestServer(clients: directory)
            try await server.application.test(.router) { client in
                async let stream = ClientTestSupport.execute("/geofences/events", as: "fleet", with: client)
                await GeofenceEventsTests.waitForListeners(1, on: server)
                try rewrite("\(ClientTestSupport.tokens["ops"]!) ops precise admin\n")
                #expect(directory.reload() == nil)
                let events = GeofenceEventsTests.events(try await stream.body)
                #expect(events.map(\.name) == ["end"], "\(events)")
                let end = try JSONDecoder().decode(GeofenceEndJSON.self, from: Data(events.last!.data.utf8))
                #expect(end.reason == "unauthorized" && end.detail == "unknown token", "\(end)")
                #expect(server.geofences.counters.totals.listenersClosed == 1, "the stream closed")
            }
        }
    }

    /// A check of client fleet whose token expires 60 s after `start`, on the test's wall clock and sleeps: a sleep
    /// asked is reported to `asked`, and ends when `release` yields; `expire()` moves the clock past the expiry and
    /// releases the sleep.
    struct ExpiringCheck {
        let check: ClientCheck
        let asked: AsyncStream<Duration>
        let expire: @Sendable () -> Void
        /// Writes the token's line with `expires` a minute after the start, and reads the file again.
        let giveTheTokenItsExpiry: @Sendable () throws -> Void
    }

    /// A check of a token that expires a minute after the start (`expiresFromTheStart`; else one that does not until
    /// ``ExpiringCheck/giveTheTokenItsExpiry``), on a clock `expire` moves past it.
    static func withExpiringToken(expiresFromTheStart: Bool = true, _ body: (ExpiringCheck) async throws -> Void) async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let expiry = ISO8601DateFormatter().string(from: start.addingTimeInterval(60))
        let expiring = "\(Self.token) fleet precise expires=\(expiry)\n"
        try await Self.withTokenFile(expiresFromTheStart ? expiring : "\(Self.token) fleet precise\n") { directory, rewrite in
            let clock = NIOLockedValueBox(start)
            let (asked, ask) = AsyncStream<Duration>.makeStream()
            let (releases, release) = AsyncStream<Void>.makeStream()
            var authenticator = ClientAuthenticator(clients: directory)
            authenticator.now = { clock.withLockedValue { $0 } }
            authenticator.sleep = { duration in
                ask.yield(duration)
                for await _ in releases { return }
                throw CancellationError()
            }
            let client = try authenticator.client(.token(Self.token))
            let check = ClientCheck(authenticator, credential: .token(Self.token), client: client)
            try await body(
                ExpiringCheck(
                    check: check, asked: asked,
                    expire: {
                        clock.withLockedValue { $0 = start.addingTimeInterval(61) }
                        release.yield()
                    },
                    giveTheTokenItsExpiry: {
                        try rewrite(expiring)
                        if let problem = directory.reload() { Issue.record("the token file was refused: \(problem)") }
                    }))
        }
    }

    /// Expects the one-shot's wait `waiting` to end with `401`, the token expired.
    static func expectAnsweredExpired(_ waiting: Task<Int, any Error>) async {
        do {
            _ = try await waiting.value
            Issue.record("answered after the token expired")
        } catch let error as HTTPError {
            #expect(error.status == .unauthorized)
            #expect(error.body?.contains("expired") == true, "\(String(describing: error.body))")
        } catch {
            Issue.record("ended with \(error), not 401")
        }
    }

    @Test("a quiet stream whose token expires while it runs ends at the expiry, saying so", .timeLimit(.minutes(1)))
    func quietStreamOfAnExpiringToken() async throws {
        try await Self.withExpiringToken { (expiring: ExpiringCheck) async throws -> Void in
            let check = expiring.check
            let (quiet, stop) = AsyncStream<Void>.makeStream()
            let watched = Task { try await check.whileAuthorized(stop: { stop.finish() }) { for await _ in quiet {} } }
            var sleeps = expiring.asked.makeAsyncIterator()
            #expect(await sleeps.next() == .seconds(60), "asleep until the token expires")
            expiring.expire()
            #expect(try await watched.value == "the token of client 'fleet' has expired")
        }
    }

    @Test("a one-shot's wait whose token expires ends at the expiry, stopped, answered 401", .timeLimit(.minutes(1)))
    func waitOfAnExpiringToken() async throws {
        try await Self.withExpiringToken { (expiring: ExpiringCheck) async throws -> Void in
            let check = expiring.check
            let (answer, stop) = AsyncStream<Int>.makeStream()
            let waiting = Task {
                try await check.answerWhileAuthorized(stop: { stop.finish() }) { () async throws -> Int in
                    for await value in answer { return value }
                    throw CancellationError()
                }
            }
            var sleeps = expiring.asked.makeAsyncIterator()
            #expect(await sleeps.next() == .seconds(60), "asleep until the token expires")
            expiring.expire()
            await Self.expectAnsweredExpired(waiting)
        }
    }

    @Test("a one-shot's wait whose token a reading of the file gives an expiry ends at that expiry, answered 401", .timeLimit(.minutes(1)))
    func waitOfATokenGivenAnExpiry() async throws {
        try await Self.withExpiringToken(expiresFromTheStart: false) { (expiring: ExpiringCheck) async throws -> Void in
            let check = expiring.check
            let (answer, stop) = AsyncStream<Int>.makeStream()
            let (started, begin) = AsyncStream<Void>.makeStream()
            let waiting = Task {
                try await check.answerWhileAuthorized(stop: { stop.finish() }) { () async throws -> Int in
                    begin.yield()
                    for await value in answer { return value }
                    throw CancellationError()
                }
            }
            for await _ in started { break }
            try expiring.giveTheTokenItsExpiry()
            var sleeps = expiring.asked.makeAsyncIterator()
            let asked = await sleeps.next()
            #expect(asked == .seconds(60), "asleep until the expiry the file now gives")
            guard asked != nil else {
                // Never asleep (before, nothing watched the new expiry) and stopped by the time limit: the wait is ended
                // here, so that the test fails rather than hangs.
                stop.finish()
                _ = try? await waiting.value
                return
            }
            expiring.expire()
            await Self.expectAnsweredExpired(waiting)
        }
    }

    @Test("a /location waiting while its token is taken out of the file is answered 401 at once, its one-shot cancelled, without a fix", .timeLimit(.minutes(1)))
    func locationOfARevokedToken() async throws {
        try await Self.withTokenFile("\(Self.token) fleet precise\n") { directory, rewrite in
            let server = try TestServer(clients: directory)
            try await server.application.test(.router) { client in
                async let answer = ClientTestSupport.execute("/location?accuracy=block&timeout=1d", as: "fleet", with: client)
                await server.waitUntilPending(oneShots: 1)
                try rewrite("\(ClientTestSupport.tokens["ops"]!) ops precise admin\n")
                #expect(directory.reload() == nil)
                // No fix and no time passes: before, the one-shot kept the source running for its day.
                await server.waitUntil { $0.pendingOneShots == 0 }
                let answered = try await answer
                #expect(answered.status == .unauthorized)
                #expect(try LocationRouteTests.errorMessage(answered.body) == "unknown token")
                server.source.emit(TestServer.fix(metres: 5))
                await server.engine.sync(advancingBy: .seconds(1))
                #expect(!String(buffer: answered.body).contains("latitude"), "no fix to a client no longer in the file")
            }
        }
    }

    @Test("a stream goes on when only its token's expiry moves later (a rotation): nothing it was opened with changed", .timeLimit(.minutes(1)))
    func updatesStreamOfAnExtendedToken() async throws {
        try await Self.withTokenFile("\(Self.token) fleet precise expires=2099-01-01T00:00:00Z\n") { directory, rewrite in
            let server = try TestServer(clients: directory)
            try await server.application.test(.router) { client in
                async let stream = ClientTestSupport.execute("/updates?maxUpdates=1", as: "fleet", with: client)
                await server.waitUntilPending(subscriptions: 1)
                try rewrite("\(Self.token) fleet precise expires=2100-01-01T00:00:00Z\n")
                #expect(directory.reload() == nil)
                server.source.emit(TestServer.fix(metres: 5))
                await server.engine.sync(advancingBy: .seconds(1))
                let events = GeofenceEventsTests.events(try await stream.body)
                #expect(events.map(\.name) == ["location", "end"], "\(events)")
                #expect(events.last?.data.contains("unauthorized") == false)
            }
        }
    }

    @Test("a /geofences/events stream whose token is taken out of the file ends at the next events, unauthorized", .timeLimit(.minutes(1)))
    func fenceEventsOfARevokedToken() async throws {
        try await Self.withTokenFile("\(Self.token) fleet precise\n") { directory, rewrite in
            let server = try TestServer(clients: directory)
            try await server.application.test(.router) { client in
                let created = try await ClientTestSupport.execute("/geofences", as: "fleet", method: .post, body: GeofenceRoutesTests.depot, with: client)
                #expect(created.status == .created)
                async let stream = ClientTestSupport.execute("/geofences/events", as: "fleet", with: client)
                await GeofenceEventsTests.waitForListeners(1, on: server)
                try rewrite("\(ClientTestSupport.tokens["ops"]!) ops precise admin\n")
                #expect(directory.reload() == nil)
                await StorageTestSupport.fix(server)
                try await server.geofences.journal.flush()
                await server.geofences.close()
                #expect(server.geofences.counters.totals.transitions == 1)
                let events = GeofenceEventsTests.events(try await stream.body)
                #expect(events.map(\.name) == ["end"], "\(events)")
                let end = try JSONDecoder().decode(GeofenceEndJSON.self, from: Data(events.last!.data.utf8))
                #expect(end.reason == "unauthorized" && end.fence == nil && end.detail == "unknown token", "\(end)")
            }
        }
    }

    @Test("an approximate client lists, reads and hears no fence (403), and may delete its own")
    func approximateClientAndFences() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            for uri in ["/geofences", "/geofences/1", "/geofences/events"] {
                let answer = try await ClientTestSupport.execute(uri, as: "weather", with: client)
                #expect(answer.status == .forbidden, "\(uri)")
                #expect(try LocationRouteTests.errorMessage(answer.body).contains("precise"), "\(uri)")
            }
            #expect(try await ClientTestSupport.execute("/geofences/1", as: "weather", method: .delete, with: client).status == .notFound)
        }
    }
}
