import Foundation
import LocationEngine

/// `--authorization SCRIPT`: a simulated user for the engine run, scripted through the engine's
/// ``SimulatedAuthorizationProvider`` so that prompts, answers and revocations follow the same rules as
/// in an application.
///
/// Comma-separated items:
/// - `start=STATE`: the picture at the start (default `authorized`);
/// - `answer=ANSWER[@DELAY]`: the user's answer to authorization prompts, after DELAY; repeatable
///   (used in order, the last repeats); ANSWER is `allow-once`, `while-using`, `always`, `coarse`
///   (while using, precise off), `deny` or `dismiss`;
/// - `at=TIME:STATE`: the user changes the picture on their own TIME after the start (revocations);
///
/// STATE is `authorized`, `reduced` (authorized, precise off), `not-determined`, `denied`,
/// `restricted` or `disabled` (services off). Example:
/// `start=not-determined,answer=while-using@2s,at=60s:reduced,at=120s:denied`.
public struct AuthorizationScript: Sendable, CustomStringConvertible {
    /// The script the engine's ``SimulatedAuthorizationProvider`` plays.
    public private(set) var script: SimulatedAuthorizationProvider.Script
    /// The text it was parsed from.
    public let description: String

    /// Parses the comma-separated items above; an unknown item, state or answer, or a bad time, is an error.
    public init(parsing text: String) throws(LocbenchError) {
        description = text
        script = SimulatedAuthorizationProvider.Script(initial: .authorizedAlways)
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !items.isEmpty else { throw Self.error("the script is empty", text) }
        for item in items {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw Self.error("'\(item)' is not KEY=VALUE", text) }
            switch parts[0] {
            case "start":
                script.initial = try Self.state(parts[1], text)
            case "answer":
                let answerParts = parts[1].split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard !answerParts[0].isEmpty, answerParts.count == 1 || !answerParts[1].isEmpty else {
                    throw Self.error("'\(item)' should be answer=ANSWER[@DELAY]", text)
                }
                let delay = try answerParts.count == 2 ? Self.duration(answerParts[1], text) : .zero
                let answer: SimulatedAuthorizationProvider.Answer =
                    switch answerParts[0] {
                    case "allow-once": .allowOnce()
                    case "while-using": .allowWhileUsing()
                    case "always": .allowAlways()
                    case "coarse": .allowWhileUsing(precise: false)
                    case "deny": .deny
                    case "dismiss": .dismiss
                    default: throw Self.error("unknown answer '\(answerParts[0])' (allow-once, while-using, always, coarse, deny, dismiss)", text)
                    }
                script.authorizationAnswers.append(.init(answer, after: delay))
            case "at":
                let changeParts = parts[1].split(separator: ":", maxSplits: 1).map(String.init)
                guard changeParts.count == 2 else { throw Self.error("'\(item)' should be at=TIME:STATE", text) }
                script.changes.append(.init(try Self.state(changeParts[1], text), after: try Self.duration(changeParts[0], text)))
            default:
                throw Self.error("unknown item '\(parts[0])' (start, answer, at)", text)
            }
        }
    }

    private static func state(_ name: String, _ text: String) throws(LocbenchError) -> AuthorizationState {
        switch name {
        case "authorized": .authorizedAlways
        case "reduced": .authorizedWhenInUse(accuracy: .reduced)
        case "not-determined": .notDetermined
        case "denied": .denied
        case "restricted": .restricted
        case "disabled": AuthorizationState(status: .authorizedAlways, servicesEnabled: false)
        default: throw error("unknown state '\(name)' (authorized, reduced, not-determined, denied, restricted, disabled)", text)
        }
    }

    private static func duration(_ text: String, _ script: String) throws(LocbenchError) -> Duration {
        guard let seconds = DurationOptions.seconds(text, within: 0...86_400) else {
            throw error("bad time '\(text)' (e.g. 2s, 10m; at most 24h)", script)
        }
        return .nanoseconds(Int64(seconds * 1e9))
    }

    private static func error(_ message: String, _ text: String) -> LocbenchError {
        .badArgument("--authorization: \(message) in '\(text)'")
    }
}
