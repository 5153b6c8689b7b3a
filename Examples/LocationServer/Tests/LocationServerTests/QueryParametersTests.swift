import Foundation
import Hummingbird
import HummingbirdCore
import LocationEngine
import Testing

@testable import LocationServer

@Suite("Query parameters")
struct QueryParametersTests {
    private func location(_ uri: String) throws(QueryError) -> LocationQuery {
        try LocationQuery(QueryParameters(uri: URI(uri), accepted: LocationQuery.accepted))
    }

    private func updates(_ uri: String) throws(QueryError) -> SubscriptionOptions {
        try UpdatesQuery(QueryParameters(uri: URI(uri), accepted: UpdatesQuery.accepted)).options
    }

    /// The error `body` throws, or `nil`.
    private func error(_ body: () throws -> some Any) -> QueryError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? QueryError
        }
    }

    @Test("levels by name, custom metres with a maximum age, durations with units")
    func parsing() throws {
        let query = try location("/location?accuracy=room&timeout=250ms")
        #expect(query.accuracy == .room)
        #expect(query.timeout == .milliseconds(250))
        #expect(try location("/location?accuracy=12.5&maxAge=1m").accuracy == .custom(metres: 12.5, maximumAge: .seconds(60)))
        #expect(try location("/location").accuracy == .block)
        #expect(try location("/location").timeout == .seconds(30))
    }

    @Test("maxAge applies to a named level too")
    func maxAgeWithALevel() throws {
        #expect(try location("/location?accuracy=city&maxAge=1").accuracy == .custom(metres: 5000, maximumAge: .seconds(1)))
        #expect(try location("/location?maxAge=2s").accuracy == .custom(metres: 100, maximumAge: .seconds(2)), "the default level, block")
        #expect(try location("/location?accuracy=house&maxAge=15s").accuracy == .house, "the level's own age: the level itself")
        #expect(try updates("/updates?accuracy=city&maxAge=1").accuracy == .custom(metres: 5000, maximumAge: .seconds(1)))
    }

    @Test(
        "a bad value is refused whatever the other parameters are",
        arguments: [
            ("/location?maxAge=abc", "maxAge=abc"),
            ("/location?maxAge=-1", "maxAge=-1"),
            ("/location?accuracy=city&maxAge=abc", "maxAge=abc"),
            ("/location?accuracy=25&maxAge=-1", "maxAge=-1"),
            ("/location?timeout=0", "timeout=0"),
            ("/location?timeout=2d", "timeout=2d"),
            ("/location?accuracy=0x10", "accuracy=0x10"),
            ("/location?accuracy=inf", "accuracy=inf"),
            ("/location?accuracy=", "accuracy="),
            ("/updates?maxAge=abc&accuracy=city", "maxAge=abc"),
            ("/updates?maxUpdates=%2B3", "maxUpdates=+3"),
            ("/updates?distance=1e400", "distance=1e400"),
        ])
    func badValue(uri: String, message: String) throws {
        let failure = uri.hasPrefix("/location") ? error { try location(uri) } : error { try updates(uri) }
        #expect(failure?.message.hasPrefix(message + ": ") == true, "\(String(describing: failure))")
        #expect(failure?.message.contains("expected ") == true, "\(String(describing: failure))")
    }

    @Test(
        "a refused duration says what was wrong with it, in words that agree with what is accepted",
        arguments: [
            ("/location?timeout=-1s", "timeout=-1s: negative; expected a duration (more than 0, up to 1 day) such as 2.5, 250ms, 2s or 1m"),
            ("/location?timeout=0", "timeout=0: zero; expected a duration (more than 0, up to 1 day) such as 2.5, 250ms, 2s or 1m"),
            ("/location?timeout=2d", "timeout=2d: longer than 1 day; expected a duration (more than 0, up to 1 day) such as 2.5, 250ms, 2s or 1m"),
            (
                "/location?timeout=0.0001",
                "timeout=0.0001: shorter than 1 millisecond, the smallest step; expected a duration (more than 0, up to 1 day) such as 2.5, 250ms, 2s or 1m"
            ),
            // Zero is allowed for a maximum age, but a nonzero one under a millisecond is not taken as zero.
            (
                "/location?maxAge=0.0004",
                "maxAge=0.0004: shorter than 1 millisecond, the smallest step; expected a duration (0 to 1 day) such as 2.5, 250ms, 2s or 1m"
            ),
            (
                "/location?timeout=%205",
                "timeout= 5: not a duration (a number of seconds, or numbers with units ms, s, m, h, d); expected a duration (more than 0, up to 1 day) such as 2.5, 250ms, 2s or 1m"
            ),
            (
                "/location?maxAge=abc",
                "maxAge=abc: not a duration (a number of seconds, or numbers with units ms, s, m, h, d); expected a duration (0 to 1 day) such as 2.5, 250ms, 2s or 1m"
            ),
        ])
    func durationRefusals(uri: String, message: String) throws {
        #expect(error { try location(uri) }?.message == message)
    }

    @Test(
        "unknown, repeated and contradictory parameters are refused, naming the parameter",
        arguments: [
            ("/location?timeout=2s&timeout=3s", "timeout", "given more than once"),
            ("/location?accuracy=city&accuracy=city", "accuracy", "given more than once"),
            ("/location?acuracy=block", "acuracy", "unknown parameter 'acuracy'"),
            ("/location?timeout=2s&kind=heading", "kind", "unknown parameter 'kind'"),
            ("/updates?maxAge=5s", "maxAge", "give accuracy too"),
            ("/updates?interval=2s&duration=3s&maxUpdates=3", "maxUpdates", "cannot be reached"),
            // A day between updates times ten quadrillion of them is past what a Duration holds: refused, not a trap.
            ("/updates?interval=1d&duration=1d&maxUpdates=9999999999999999", "maxUpdates", "cannot be reached"),
            ("/updates?interval=1ms&duration=1d&maxUpdates=86400001", "maxUpdates", "cannot be reached"),
        ])
    func refusedCombination(uri: String, parameter: String, message: String) throws {
        let failure = uri.hasPrefix("/location") ? error { try location(uri) } : error { try updates(uri) }
        #expect(failure?.parameter == parameter)
        #expect(failure?.message.contains(message) == true, "\(String(describing: failure))")
    }

    @Test("subscription options from the query")
    func subscriptionOptions() throws {
        let options = try updates("/updates?kind=significant&interval=5s&duration=10m&maxUpdates=3")
        #expect(options.kind == .significantChange)
        #expect(options.minimumInterval == .seconds(5))
        #expect(options.duration == .seconds(600))
        #expect(options.maximumUpdates == 3)
        #expect(try updates("/updates?interval=2s&duration=3s&maxUpdates=2").maximumUpdates == 2, "reachable: at 0 s and 2 s")
        #expect(try updates("/updates?interval=1ms&duration=1d&maxUpdates=86400000").maximumUpdates == 86_400_000, "the last at 86,399.999 s")
    }

    @Test("the README's parameter table names exactly the parameters the server accepts")
    func readmeTableMatches() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let table = try #require(text.components(separatedBy: "## Parameters").last?.components(separatedBy: "\n## ").first)
        let rows = table.split(separator: "\n").filter { $0.hasPrefix("| `") }
        let names = rows.compactMap { $0.split(separator: "`").dropFirst().first.map(String.init) }
        #expect(Set(names) == LocationQuery.accepted.union(UpdatesQuery.accepted))
        for row in rows {
            let name = String(row.split(separator: "`")[1])
            let columns = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let endpoints = columns[1]
            #expect((endpoints == "both" || endpoints == "`/location`") == LocationQuery.accepted.contains(name), "\(name)")
            #expect((endpoints == "both" || endpoints == "`/updates`") == UpdatesQuery.accepted.contains(name), "\(name)")
        }
    }
}
