import Hummingbird
import HummingbirdCore

/// The query of one request as name/value pairs, checked before any value is read: every name must
/// be one the endpoint accepts and appear at most once. Values are then read one parameter at a time
/// by ``QueryValue``, so a value is valid or not whatever the other parameters are.
struct QueryParameters: Sendable {
    /// The parameters by name, each given once.
    private let values: [String: String]

    /// Checks `pairs` against `accepted`.
    /// - Throws: ``QueryError`` naming an unknown parameter, else a repeated one (the first in
    ///   alphabetical order, so the answer does not depend on the parameters' order).
    init(pairs: some Sequence<(name: String, value: String)>, accepted: Set<String>) throws(QueryError) {
        var values: [String: String] = [:]
        var unknown: [String] = []
        var repeated: [String] = []
        for (name, value) in pairs {
            if !accepted.contains(name) {
                unknown.append(name)
            } else if values.updateValue(value, forKey: name) != nil {
                repeated.append(name)
            }
        }
        if let name = unknown.min() {
            throw QueryError(
                parameter: name, "unknown parameter '\(name)'; accepted: \(accepted.sorted().joined(separator: ", "))")
        }
        if let name = repeated.min() {
            throw QueryError(parameter: name, "parameter '\(name)' is given more than once; give it once")
        }
        self.values = values
    }

    /// The query of `uri` (values percent-decoded by Hummingbird).
    init(uri: URI, accepted: Set<String>) throws(QueryError) {
        try self.init(pairs: uri.queryParameters.map { (String($0.key), String($0.value)) }, accepted: accepted)
    }

    /// The text of `name` as given, or `nil` when absent.
    func text(_ name: String) -> String? { values[name] }

    /// The value of `name` read by `read`, or `nil` when absent.
    /// - Throws: ``QueryError`` naming the parameter, its value and what is accepted.
    func value<Value>(_ name: String, _ read: QueryValue<Value>) throws(QueryError) -> Value? {
        guard let text = values[name] else { return nil }
        do throws(QueryValue<Value>.Invalid) {
            return try read.parse(text)
        } catch {
            throw QueryError(parameter: name, "\(name)=\(text): \(error.message)")
        }
    }
}

/// A query parameter that cannot be used: unknown, repeated, a bad value, or contradicting another.
/// Answered with 400 and ``message``, which names the parameter.
struct QueryError: Error, Equatable, CustomStringConvertible {
    /// The parameter at fault.
    var parameter: String
    /// What is wrong and what would be accepted.
    var message: String

    init(parameter: String, _ message: String) {
        self.parameter = parameter
        self.message = message
    }

    var description: String { message }

    /// The 400 response this error is answered with.
    var httpError: HTTPError { HTTPError(.badRequest, message: message) }
}
