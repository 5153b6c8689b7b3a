import LocationEngine
import Logging
import Prometheus
import Testing

@testable import LocationServer

@Suite("The audit's counters and the token read of every request")
struct ClientAuditTests {
    static let fleet = Client(name: "fleet", permission: .precise)
    static let weather = Client(name: "weather", permission: .approximate)

    /// `registry`'s Prometheus text.
    static func text(_ registry: PrometheusCollectorRegistry) -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test("each label set keeps one counter: repeated answers and refusals add to it, another client's to its own")
    func countersKept() {
        let registry = PrometheusCollectorRegistry()
        let audit = ClientAudit(registry: registry, logger: ClientTestSupport.silent)
        for _ in 0..<3 { audit.answered(Self.fleet, route: "location", level: AccuracyLevelName(fixReaching: .block)) }
        audit.answered(Self.fleet, route: "updates", level: AccuracyLevelName(fixReaching: .block))
        audit.answered(Self.fleet, route: "location", level: .noFix)
        audit.answered(Self.weather, route: "location", level: AccuracyLevelName(fixReaching: .city))
        audit.answered(Self.weather, route: "location", level: AccuracyLevelName(fixReaching: nil))
        for _ in 0..<2 { audit.refused(Self.fleet, status: 429) }
        audit.refused(Self.weather, status: 403)
        let text = Self.text(registry)
        for line in [
            #"locationserver_client_answers{client="fleet",route="location",accuracy="block"} 3"#,
            #"locationserver_client_answers{client="fleet",route="updates",accuracy="block"} 1"#,
            #"locationserver_client_answers{client="fleet",route="location",accuracy="none"} 1"#,
            #"locationserver_client_answers{client="weather",route="location",accuracy="city"} 1"#,
            #"locationserver_client_answers{client="weather",route="location",accuracy="coarser"} 1"#,
            #"locationserver_client_refusals{client="fleet",status="429"} 2"#,
            #"locationserver_client_refusals{client="weather",status="403"} 1"#,
        ] {
            #expect(text.contains(line), "\(line)")
        }
    }

    @Test("an answer whose fix reaches no level (coarser or older than city) is counted coarser, not as an answer without a fix")
    func coarserFixIsNotNone() throws {
        let registry = PrometheusCollectorRegistry()
        let audit = ClientAudit(registry: registry, logger: ClientTestSupport.silent)
        let view = try ClientView(Self.fleet, audit: audit)
        let far = Location(latitude: 48.1, longitude: 11.5, horizontalAccuracy: 8_000)
        _ = view.answer(LocationResult(status: .timedOut, location: far, age: .seconds(1), achievedAccuracy: nil), asked: .city, now: .zero)
        _ = view.answer(LocationResult(status: .timedOut, location: nil, age: nil, achievedAccuracy: nil), asked: .city, now: .zero)
        let text = Self.text(registry)
        #expect(text.contains(#"locationserver_client_answers{client="fleet",route="location",accuracy="coarser"} 1"#), "\(text)")
        #expect(text.contains(#"locationserver_client_answers{client="fleet",route="location",accuracy="none"} 1"#), "\(text)")
    }

    @Test("two audits over one registry count into the same series (the registry's counters, not copies)")
    func sharedRegistry() {
        let registry = PrometheusCollectorRegistry()
        let first = ClientAudit(registry: registry, logger: ClientTestSupport.silent)
        let second = ClientAudit(registry: registry, logger: ClientTestSupport.silent)
        first.answered(Self.fleet, route: "location", level: AccuracyLevelName(fixReaching: .house))
        second.answered(Self.fleet, route: "location", level: AccuracyLevelName(fixReaching: .house))
        #expect(Self.text(registry).contains(#"locationserver_client_answers{client="fleet",route="location",accuracy="house"} 2"#))
    }

    @Test(
        "the Authorization header's token is read as bytes after 'Bearer ' (the scheme in any case, as HTTP's schemes are, and any run of spaces); anything else names what is wrong",
        arguments: [
            ("Bearer fleet-token-0123456789abcdef", nil),
            ("Bearer abcdefghijklmnop==", nil),
            ("bearer fleet-token-0123456789abcdef", nil),
            ("BEARER fleet-token-0123456789abcdef", nil),
            ("Bearer   fleet-token-0123456789abcdef", nil),
            ("Bearer", "none after Bearer"),
            ("bearer", "none after Bearer"),
            ("Bearer ", "malformed token"),
            ("Bearertoken-0123456789abcdef", "is not Bearer TOKEN (it starts 'Bearer…')"),
            ("Beare fleet-token-0123456789abcdef", "is not Bearer TOKEN (it starts 'Beare …')"),
            ("Basic Zm9vOmJhcg==", "is not Bearer TOKEN (it starts 'Basic …')"),
            ("Bearer short", "malformed token"),
            ("Bearer abcdefghijklmnop=q", "malformed token"),
            ("Bearer ================", "malformed token"),
            ("Bearer abcdefghijklmnopé", "malformed token"),
        ] as [(String, String?)])
    func bearerToken(header: String, problem: String?) {
        do {
            let token = try ClientAuthenticator.token(header)
            #expect(problem == nil, "\(header) was taken")
            #expect(token == String(header.dropFirst("Bearer".count).drop { $0 == " " }))
        } catch {
            #expect(problem.map { error.body?.contains($0) ?? false } ?? false, "\(header): \(error)")
            #expect(error.status == .unauthorized)
        }
    }

    @Test("a token is 16 to 512 characters of token68, '=' only at its end")
    func tokenCharacters() {
        #expect(TokenFile.isToken(String(repeating: "a", count: 16)))
        #expect(TokenFile.isToken(String(repeating: "Z9-._~+/", count: 64)))
        #expect(TokenFile.isToken("abcdefghijklmno="))
        #expect(!TokenFile.isToken(String(repeating: "a", count: 15)))
        #expect(!TokenFile.isToken(String(repeating: "a", count: 513)))
        #expect(!TokenFile.isToken("abcdefgh=ijklmnop"))
        #expect(!TokenFile.isToken("abcdefgh ijklmnop"))
        #expect(!TokenFile.isToken("abcdefgh:ijklmnop"))
    }
}
