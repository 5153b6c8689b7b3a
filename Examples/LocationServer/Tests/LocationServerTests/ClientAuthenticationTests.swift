import Foundation
import Hummingbird
import HummingbirdTesting
import LocationEngine
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import NIOPosix
import Testing

@testable import LocationServer

@Suite("Clients identified by bearer tokens")
struct ClientAuthenticationTests {
    @Test(
        "a request without a valid token is 401 with WWW-Authenticate and what was wrong",
        arguments: [
            (nil, "no Authorization header"),
            ("Basic Zm9vOmJhcg==", "is not Bearer TOKEN"),
            ("Bearer short", "malformed token"),
            ("Bearer ", "malformed token"),
            ("Bearer unknown-token-0123456789abcdef", "unknown token"),
            ("Bearer gone-token-0123456789abcdef", "the token of client 'gone' has expired"),
        ] as [(String?, String)])
    func unauthorized(header: String?, message: String) async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            for uri in ["/location", "/updates", "/geofences", "/geofences/1", "/geofences/events", "/metrics", "/nowhere"] {
                let answer = try await client.execute(uri: uri, method: .get, headers: header.map { [.authorization: $0] } ?? [:])
                #expect(answer.status == .unauthorized, "\(uri)")
                #expect(answer.headers[.wwwAuthenticate] == #"Bearer realm="location-server""#)
                #expect(try LocationRouteTests.errorMessage(answer.body).contains(message), "\(uri)")
            }
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
        }
        #expect(server.counters.totals.locationRequestsStarted == 0)
    }

    @Test("a client with permission none is refused the location routes and /metrics (403), each refusal counted")
    func permissionNone() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            for (uri, method) in [("/location", HTTPRequest.Method.get), ("/updates", .get), ("/geofences", .post)] {
                let answer = try await ClientTestSupport.execute(uri, as: "blocked", method: method, body: GeofenceRoutesTests.depot, with: client)
                #expect(answer.status == .forbidden, "\(uri)")
                #expect(try LocationRouteTests.errorMessage(answer.body).contains("client 'blocked' has permission none"))
            }
            #expect(try await ClientTestSupport.execute("/metrics", as: "blocked", with: client).status == .forbidden)
            let metrics = try await ClientTestSupport.execute("/metrics", as: "ops", with: client)
            #expect(metrics.status == .ok)
            #expect(String(buffer: metrics.body).contains(#"locationserver_client_refusals{client="blocked",status="403"} 4"#))
        }
        #expect(server.counters.totals.locationRequestsStarted == 0)
    }

    @Test("/metrics for a precise client that is not an admin carries its own samples only; an admin sees everything")
    func metricsOfOtherClientsAreAdmins() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            _ = try await ClientTestSupport.execute("/location", as: "blocked", with: client)
            async let answer = ClientTestSupport.execute("/location?accuracy=block&timeout=10s", as: "fleet", with: client)
            await server.waitUntilPending(oneShots: 1)
            server.source.emit(TestServer.fix(metres: 40))
            #expect(try await answer.status == .ok)
            #expect(try await ClientTestSupport.execute("/geofences", as: "ops", method: .post, body: GeofenceRoutesTests.depot, with: client).status == .created)
            let fleet = String(buffer: try await ClientTestSupport.execute("/metrics", as: "fleet", with: client).body)
            #expect(fleet.contains("# TYPE locationserver_client_answers") && fleet.hasSuffix("\n"), "\(fleet)")
            // Only blocked was refused: the family's header alone would say so.
            #expect(!fleet.contains("locationserver_client_refusals"), "\(fleet)")
            let samples = fleet.split(separator: "\n").filter { !$0.hasPrefix("#") }
            #expect(!samples.isEmpty && samples.allSatisfy { $0.hasPrefix("locationserver_client_") && $0.contains(#"client="fleet""#) }, "\(fleet)")
            let ops = String(buffer: try await ClientTestSupport.execute("/metrics", as: "ops", with: client).body)
            #expect(ops.contains("locationserver_geofences 1") && ops.contains(#"locationserver_client_refusals{client="blocked",status="403"} 1"#))
            #expect(ops.contains("# TYPE locationserver_geofence_transitions") && ops.contains("locationengine_requests_submitted"))
        }
    }

    @Test("what another client's fence does — created, crossed, deleted — moves nothing in a non-admin's /metrics")
    func anotherClientsFenceIsUnseen() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            func scrape() async throws -> String {
                String(buffer: try await ClientTestSupport.execute("/metrics", as: "fleet", with: client).body)
            }
            let before = try await scrape()
            let created = try await ClientTestSupport.execute("/geofences", as: "ops", method: .post, body: GeofenceRoutesTests.depot, with: client)
            #expect(created.status == .created)
            await server.waitUntilPending(subscriptions: 1)
            await StorageTestSupport.fix(server)
            await StorageTestSupport.fix(server, latitude: 48.150)
            let id = try #require(server.geofences.fences.first?.id)
            #expect(try await ClientTestSupport.execute("/geofences/\(id)", as: "ops", method: .delete, with: client).status == .noContent)
            #expect(try await scrape() == before)
            let ops = String(buffer: try await ClientTestSupport.execute("/metrics", as: "ops", with: client).body)
            #expect(ops.contains(#"locationserver_geofence_transitions{transition="exited"} 1"#), "\(ops)")
        }
    }

    @Test("a precise client gets the fix as measured; the answer is counted per client and level")
    func precise() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            async let answer = ClientTestSupport.execute("/location?accuracy=block&timeout=10s", as: "fleet", with: client)
            await server.waitUntilPending(oneShots: 1)
            server.source.emit(TestServer.fix(metres: 40))
            await server.engine.sync()
            let body = try JSONDecoder().decode(LocationResponse.self, from: try await answer.body)
            #expect(body.status == "success" && body.fix?.latitude == 48.137 && body.fix?.horizontalAccuracy == 40)
            #expect(body.fix?.coarsened == nil)
            let metrics = String(buffer: try await ClientTestSupport.execute("/metrics", as: "fleet", with: client).body)
            #expect(metrics.contains(#"locationserver_client_answers{client="fleet",route="location",accuracy="block"} 1"#))
        }
    }

    @Test("a token file read again on SIGHUP takes effect at once; a bad one leaves the tokens as they were")
    func reload() async throws {
        try await StorageTestSupport.withDatabaseFile { path in
            let tokens = path + ".tokens"
            defer { try? FileManager.default.removeItem(atPath: tokens) }
            try "\(ClientTestSupport.tokens["fleet"]!) fleet precise\n".write(toFile: tokens, atomically: true, encoding: .utf8)
            let directory = try ClientDirectory.tokens(path: tokens, logger: ClientTestSupport.silent)
            let server = try TestServer(clients: directory)
            try await server.application.test(.router) { client in
                #expect(try await ClientTestSupport.execute("/metrics", as: "fleet", with: client).status == .ok)
                #expect(try await ClientTestSupport.execute("/metrics", as: "ops", with: client).status == .unauthorized)
                try "\(ClientTestSupport.tokens["ops"]!) ops precise admin\n".write(toFile: tokens, atomically: true, encoding: .utf8)
                #expect(directory.reload() == nil)
                #expect(try await ClientTestSupport.execute("/metrics", as: "fleet", with: client).status == .unauthorized)
                #expect(try await ClientTestSupport.execute("/metrics", as: "ops", with: client).status == .ok)
                try "\(ClientTestSupport.tokens["fleet"]!) fleet exact\n".write(toFile: tokens, atomically: true, encoding: .utf8)
                #expect(directory.reload()?.line == 1)
                #expect(try await ClientTestSupport.execute("/metrics", as: "ops", with: client).status == .ok)
                // Emptied (being rewritten, or by mistake): taken, it would lock every client out.
                for empty in ["", "\n  \n"] {
                    try empty.write(toFile: tokens, atomically: true, encoding: .utf8)
                    #expect(directory.reload()?.message.contains("is empty") == true)
                    #expect(try await ClientTestSupport.execute("/metrics", as: "ops", with: client).status == .ok)
                }
                // A file that says so names nobody on purpose: every client revoked at once.
                try "# every client revoked\n".write(toFile: tokens, atomically: true, encoding: .utf8)
                #expect(directory.reload() == nil)
                #expect(try await ClientTestSupport.execute("/metrics", as: "ops", with: client).status == .unauthorized)
            }
        }
    }

    @Test("a client past its rate limit is answered 429 with Retry-After; another client is served as before")
    func rateLimit() async throws {
        // One request per 1,000 s after a burst of 3: the wall clock between the requests refills nothing.
        let server = try TestServer(clients: try ClientTestSupport.directory(), clientRateLimit: RateLimit(rate: 0.001, burst: 3))
        try await server.application.test(.router) { client in
            for _ in 0..<3 { #expect(try await ClientTestSupport.execute("/geofences", as: "fleet", with: client).status == .ok) }
            for _ in 0..<30 {
                let refused = try await ClientTestSupport.execute("/geofences", as: "fleet", with: client)
                #expect(refused.status == .tooManyRequests)
                #expect(refused.headers[.retryAfter].flatMap { Int($0) }.map { (900...1000).contains($0) } == true, "the next request is due in about 1,000 s, less the seconds this test has taken")
            }
            #expect(try await ClientTestSupport.execute("/geofences", as: "courier", with: client).status == .ok)
            let metrics = String(buffer: try await ClientTestSupport.execute("/metrics", as: "ops", with: client).body)
            #expect(metrics.contains(#"locationserver_client_refusals{client="fleet",status="429"} 30"#))
        }
    }

    @Test(
        "a client with its maximum of requests open (a pending /location, an open stream) is answered 429 until one ends; another client is served as before",
        .timeLimit(.minutes(1)))
    func openRequestLimit() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory(), clientMaxOpen: 2)
        try await server.application.test(.router) { client in
            async let stream = ClientTestSupport.execute("/updates?maxUpdates=2", as: "fleet", with: client)
            async let oneShot = ClientTestSupport.execute("/location?accuracy=block&timeout=1h", as: "fleet", with: client)
            await server.waitUntilPending(oneShots: 1, subscriptions: 1)
            #expect(server.openRequests.count(of: "fleet") == 2)

            let refused = try await ClientTestSupport.execute("/geofences", as: "fleet", with: client)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.headers[.retryAfter] == "1")
            #expect(try LocationRouteTests.errorMessage(refused.body).contains("client 'fleet' has 2 requests open, its limit"))
            #expect(try await ClientTestSupport.execute("/geofences", as: "courier", with: client).status == .ok)

            // The fix answers the one-shot and is the stream's first update: the stream stays open, holding its place.
            server.source.emit(TestServer.fix(metres: 10))
            #expect(try await oneShot.status == .ok)
            #expect(server.openRequests.count(of: "fleet") == 1, "the one-shot's answer is written")
            #expect(try await ClientTestSupport.execute("/geofences", as: "fleet", with: client).status == .ok)
            #expect(server.openRequests.count(of: "fleet") == 1, "the stream is still open")

            server.source.emit(TestServer.fix(metres: 10, latitude: 48.2))
            #expect(try await stream.status == .ok)
            #expect(server.openRequests.count(of: "fleet") == 0)
            let metrics = String(buffer: try await ClientTestSupport.execute("/metrics", as: "ops", with: client).body)
            #expect(metrics.contains(#"locationserver_client_refusals{client="fleet",status="429"} 1"#))
        }
        #expect(server.openRequests.count(of: "courier") == 0)
    }

    @Test("a request refused or answered at once holds no place: a client at its limit of one asks again and again", .timeLimit(.minutes(1)))
    func placesComeBack() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory(), clientMaxOpen: 1)
        try await server.application.test(.router) { client in
            for uri in ["/geofences", "/geofences/99", "/nowhere", "/location?accuracy=nonsense", "/geofences"] {
                let answer = try await ClientTestSupport.execute(uri, as: "fleet", with: client)
                #expect(answer.status != .tooManyRequests, "\(uri)")
                #expect(server.openRequests.count(of: "fleet") == 0, "\(uri): its answer is written")
            }
        }
    }

    @Test("a /location whose client disconnects is cancelled at once, and gives its place back: it does not wait out its timeout", .timeLimit(.minutes(1)))
    func disconnectedOneShotEnds() async throws {
        let server = try TestServer(clientMaxOpen: 1)
        try await server.application.test(.live) { client in
            let port = try #require(client.port)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
            let request = "GET /location?accuracy=block&timeout=1h HTTP/1.1\r\nHost: localhost\r\n\r\n"
            try await channel.writeAndFlush(ByteBuffer(string: request)).get()
            await server.waitUntilPending(oneShots: 1)
            #expect(server.openRequests.count(of: "local") == 1)
            #expect(try await client.execute(uri: "/geofences", method: .get).status == .tooManyRequests)

            try await channel.close().get()
            await server.waitUntil { $0.pendingOneShots == 0 }
            #expect(await server.engine.statistics().oneShotsCancelled == 1)
            await TestServer.yieldUntil("the client's places to be given back") { server.openRequests.count(of: "local") == 0 }
            #expect(try await client.execute(uri: "/geofences", method: .get).status == .ok)
        }
    }

    /// Sends `text` on a new connection to `client`'s server, waits until `sent` holds, then closes the connection.
    private static func send(_ text: String, to client: some TestClientProtocol, thenCloseOnce sent: () async -> Void) async throws {
        let port = try #require(client.port)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
        await sent()
        try await channel.close().get()
    }

    @Test(
        "a quiet stream whose client sent another request behind it, then disconnected, ends: the subscription is cancelled and the client's place given back",
        .timeLimit(.minutes(1)))
    func aPipelinedStreamEndsWhenItsClientLeaves() async throws {
        let server = try TestServer(clientMaxOpen: 1)
        try await server.application.test(.live) { client in
            // A 1 cm filter: nothing is ever written, so no failed write would tell the stream its client has gone.
            let pipelined = "GET /updates?accuracy=0.01 HTTP/1.1\r\nHost: localhost\r\n\r\nGET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
            try await Self.send(pipelined, to: client) { await server.waitUntilPending(subscriptions: 1) }
            await server.waitUntil { $0.activeSubscriptions == 0 }
            await TestServer.yieldUntil("the client's places to be given back") { server.openRequests.count(of: "local") == 0 }
        }
    }

    @Test("a /geofences/events stream whose client sent another request behind it, then disconnected, ends", .timeLimit(.minutes(1)))
    func aPipelinedEventStreamEndsWhenItsClientLeaves() async throws {
        let server = try TestServer()
        try await server.application.test(.live) { client in
            let pipelined = "GET /geofences/events HTTP/1.1\r\nHost: localhost\r\n\r\nGET /health HTTP/1.1\r\nHost: localhost\r\n\r\n"
            try await Self.send(pipelined, to: client) { await GeofenceEventsTests.waitForListeners(1, on: server) }
            await TestServer.yieldUntil("the event stream to close") { server.geofences.counters.totals.listenersClosed >= 1 }
        }
    }

    @Test("something that begins to wait on a connection already reset is cancelled once the connection is closed, not left to its timeout")
    func aRequestOnAResetConnectionIsCancelled() async throws {
        let cancelled = NIOLockedValueBox<[Int]>([])
        let requests = ConnectionRequests { _ in }
        let channel = EmbeddedChannel()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        requests.closed(channel)
        _ = try await channel.close()
        #expect(requests.watch(on: channel) { cancelled.withLockedValue { $0.append(7) } } == nil)
        channel.embeddedEventLoop.run()
        #expect(cancelled.withLockedValue { $0 } == [7])
        // A channel never active (a router test's) is not cancelled: it never closes.
        _ = requests.watch(on: EmbeddedChannel()) { cancelled.withLockedValue { $0.append(8) } }
        #expect(cancelled.withLockedValue { $0 } == [7])
    }

    @Test("a connection that never finishes its request line is closed after the idle timeout, before any client is known", .timeLimit(.minutes(1)))
    func aTricklingConnectionIsClosed() async throws {
        let server = try TestServer()
        var application = server.serverApplication
        application.idleConnectionTimeout = .milliseconds(200)
        try await application.build(configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "test"))
            .test(.live) { client in
                let port = try #require(client.port)
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
                try await channel.writeAndFlush(ByteBuffer(string: "GET /loca")).get()
                // Closed by the server, or a failure naming the wait.
                await TestServer.yieldUntil("the server to close the trickling connection") { !channel.isActive }
            }
    }
}
