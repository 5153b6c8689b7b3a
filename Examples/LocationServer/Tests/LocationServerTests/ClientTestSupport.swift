import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging

@testable import LocationServer

/// The clients of the client tests: one token each, by name.
enum ClientTestSupport {
    static let tokens: [String: String] = [
        "fleet": "fleet-token-0123456789abcdef", "courier": "courier-token-0123456789abcdef",
        "weather": "weather-token-0123456789abcdef", "blocked": "blocked-token-0123456789abcdef",
        "ops": "ops-token-0123456789abcdef", "gone": "gone-token-0123456789abcdef",
    ]

    /// fleet and courier precise, weather approximate, blocked none, ops precise and admin, gone expired.
    static func directory() throws -> ClientDirectory {
        let text = """
            \(tokens["fleet"]!) fleet precise
            \(tokens["courier"]!) courier precise
            \(tokens["weather"]!) weather approximate
            \(tokens["blocked"]!) blocked none
            \(tokens["ops"]!) ops precise admin
            \(tokens["gone"]!) gone precise expires=2020-01-01T00:00:00Z
            """
        return ClientDirectory(mode: .tokens(path: "tokens"), table: try TokenFile.parse(text, path: "tokens"), logger: silent)
    }

    /// A logger that prints nothing: a passing test prints no error line.
    static var silent: Logger { Logger(label: "clients") { _ in SwiftLogNoOpLogHandler() } }

    /// `method uri` as `name` (a client of ``tokens``), with `body`.
    static func execute(
        _ uri: String, as name: String, method: HTTPRequest.Method = .get, body: String? = nil, with client: some TestClientProtocol
    ) async throws -> TestResponse {
        try await client.execute(
            uri: uri, method: method, headers: [.authorization: "Bearer \(tokens[name]!)"], body: body.map { ByteBuffer(string: $0) })
    }
}
