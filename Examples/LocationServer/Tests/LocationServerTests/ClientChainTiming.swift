import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LocationEngine
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import LocationServer

/// What the clients' chain costs a request, in process and without the network: the server's own
/// responder (token check, rate limit, routes, audit) timed request by request, with a token file and
/// without one, interleaved. A timing harness, not a test of durations: it asserts only that every
/// request was answered as it should be, and prints the times (one JSON line). It runs when
/// `LOCATIONSERVER_TIMING` is set, in a release build:
///
///     LOCATIONSERVER_TIMING=1 swift test -c release -Xswiftc -enable-testing --disable-xctest --filter ClientChainTiming
@Suite("The clients' chain timed per request")
struct ClientChainTiming {
    /// Requests per round and rounds per route and mode; the modes alternate round by round.
    static let requestsPerRound = 2_000
    static let rounds = 20

    /// One server: its responder, and the header its requests carry.
    struct Mode {
        let name: String
        let server: TestServer
        /// Answers a request through the server's responder (a context of its own made first), and says how long the responder took.
        let respond: (Request) async throws -> (Response, Duration)
        let headers: HTTPFields
    }

    @Test(
        "GET /geofences and a cached GET /location, with a token file and without: p50 and p99 per request",
        .enabled(if: ProcessInfo.processInfo.environment["LOCATIONSERVER_TIMING"] != nil))
    func chain() async throws {
        // A limit no request reaches: its bucket is taken and refilled on every request in both modes.
        let limit = RateLimit(rate: 1e9, burst: 1e9)
        let token = ClientTestSupport.tokens["fleet"]!
        let modes = [
            try await Self.mode("without_tokens", TestServer(clientRateLimit: limit), headers: [:]),
            try await Self.mode(
                "with_tokens", TestServer(clients: try ClientTestSupport.directory(), clientRateLimit: limit),
                headers: [.authorization: "Bearer \(token)"]),
        ]
        var figures: [String: [String: Double]] = [:]
        for path in ["/geofences", "/location?accuracy=city&timeout=1"] {
            var samples = [String: [Double]]()
            for _ in 0..<Self.rounds {
                for mode in modes {
                    samples[mode.name, default: []] += try await Self.time(path, mode)
                }
            }
            let route = String(path.prefix { $0 != "?" })
            for mode in modes {
                let sorted = samples[mode.name, default: []].sorted()
                figures["\(route) \(mode.name)"] = [
                    "p50_us": Self.rounded(sorted[sorted.count / 2]), "p99_us": Self.rounded(sorted[sorted.count * 99 / 100]),
                ]
            }
        }
        let line = try JSONSerialization.data(withJSONObject: ["client_chain": figures], options: [.sortedKeys])
        print(String(decoding: line, as: UTF8.self))
    }

    /// A server of `mode`, its cache holding a fix that answers `accuracy=city` (so `/location` never waits).
    static func mode(_ name: String, _ server: TestServer, headers: HTTPFields) async throws -> Mode {
        try await server.application.test(.router) { client in
            async let answer = client.execute(uri: "/location?accuracy=city&timeout=5", method: .get, headers: headers)
            await server.waitUntilPending(oneShots: 1)
            server.source.emit(TestServer.fix(metres: 40))
            await server.engine.sync()
            let status = try await answer.status
            #expect(status == .ok)
        }
        return Mode(name: name, server: server, respond: try await timed(server.application), headers: headers)
    }

    /// `application`'s responder, each request in a context of its own (on a testing channel, as the router tests' own), timed.
    static func timed<App: ApplicationProtocol>(_ application: App) async throws -> (Request) async throws -> (Response, Duration)
    where App.Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
        let responder = try await application.responder
        let logger = ClientTestSupport.silent
        let clock = ContinuousClock()
        return { request in
            let context = App.Responder.Context(source: .init(channel: NIOAsyncTestingChannel(), logger: logger))
            let start = clock.now
            let response = try await responder.respond(to: request, context: context)
            return (response, start.duration(to: clock.now))
        }
    }

    /// `requestsPerRound` requests of `path` to `mode`'s responder, each timed (µs).
    static func time(_ path: String, _ mode: Mode) async throws -> [Double] {
        var times: [Double] = []
        times.reserveCapacity(requestsPerRound)
        for _ in 0..<requestsPerRound {
            let request = Request(
                head: HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: path, headerFields: mode.headers),
                body: RequestBody(buffer: ByteBuffer()))
            let (response, elapsed) = try await mode.respond(request)
            #expect(response.status == .ok, "\(mode.name) \(path)")
            times.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
        }
        return times
    }

    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
