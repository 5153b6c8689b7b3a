import Hummingbird
import HummingbirdCore
import LocationEngine
import SyntheticGPS

/// Reads the query parameters of `/location` and `/updates`. Every bad value becomes a 400 whose
/// message names the parameter, what was given and what is accepted.
struct QueryParameters {
    let uri: URI

    /// A parameter's text, or `nil` when absent.
    func text(_ name: String) -> String? {
        uri.queryParameters[name[...]].map(String.init)
    }

    /// `accuracy`: a level name (`city`, `neighborhood`, `block`, `house`, `room`) or custom metres
    /// (`25`, with `maxAge` in seconds, default 60 s).
    func accuracy(_ name: String = "accuracy") throws -> LocationAccuracy? {
        guard let text = text(name) else { return nil }
        if let level = AccuracyLevel.allCases.first(where: { $0.description == text }) { return LocationAccuracy(level) }
        guard let metres = Double(text), metres.isFinite, metres > 0 else {
            throw HTTPError(
                .badRequest,
                message: "\(name)=\(text): expected city, neighborhood, block, house, room or a positive number of metres")
        }
        let maximumAge = try duration("maxAge") ?? .seconds(60)
        return .custom(metres: metres, maximumAge: maximumAge)
    }

    /// A duration: seconds (`2.5`) or with a unit (`250ms`, `2s`, `1m`).
    func duration(_ name: String) throws -> Duration? {
        guard let text = text(name) else { return nil }
        do {
            let seconds = try DurationText.seconds(parsing: text)
            guard seconds <= 86_400 else { throw SyntheticGPSError.invalidArgument("at most one day") }
            return .milliseconds(Int64((seconds * 1000).rounded()))
        } catch {
            throw HTTPError(.badRequest, message: "\(name)=\(text): expected a duration such as 2.5, 250ms, 2s or 1m (\(error))")
        }
    }

    /// A non-negative number.
    func number(_ name: String) throws -> Double? {
        guard let text = text(name) else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0 else {
            throw HTTPError(.badRequest, message: "\(name)=\(text): expected a number of 0 or more")
        }
        return value
    }

    /// A positive whole number.
    func count(_ name: String) throws -> Int? {
        guard let text = text(name) else { return nil }
        guard let value = Int(text), value > 0 else {
            throw HTTPError(.badRequest, message: "\(name)=\(text): expected a whole number of 1 or more")
        }
        return value
    }

    /// Parameters other than `known`, which are refused so that a typo is not silently ignored.
    func rejectUnknown(allowing known: Set<String>) throws {
        for (name, _) in uri.queryParameters where !known.contains(String(name)) {
            throw HTTPError(
                .badRequest, message: "unknown parameter '\(name)'; accepted: \(known.sorted().joined(separator: ", "))")
        }
    }
}
