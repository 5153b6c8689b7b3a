#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The authorization an operator configured, for Linux deployments: a fixed picture, and fixed
/// answers to the engine's prompts (there is no user to ask on a server).
///
/// The default — authorized always, full accuracy — is what a deployment grants by configuring the
/// engine at all. To configure it from a file, see ``init(configuration:)`` for the format.
public struct StaticAuthorizationProvider: AuthorizationProvider {
    /// The configured picture.
    public var state: AuthorizationState
    /// What an authorization prompt resolves to: a status, or `nil` to leave the picture unchanged
    /// (the prompt is "dismissed": waiting requests end with ``AuthorizationFailure/undecided``).
    public var promptAnswer: AuthorizationState.Status?
    /// Whether an answer of authorized-when-in-use is one-time ("Allow Once").
    public var promptAnswerIsOneTime: Bool
    /// Whether temporary full accuracy is granted when asked for.
    public var grantsTemporaryFullAccuracy: Bool
    /// Whether a location-button confirmation is accepted.
    public var confirmsLocationButton: Bool

    /// A fixed picture with fixed answers.
    public init(
        _ state: AuthorizationState = .authorizedAlways,
        promptAnswer: AuthorizationState.Status? = nil,
        promptAnswerIsOneTime: Bool = false,
        grantsTemporaryFullAccuracy: Bool = false,
        confirmsLocationButton: Bool = false
    ) {
        self.state = state
        self.promptAnswer = promptAnswer
        self.promptAnswerIsOneTime = promptAnswerIsOneTime
        self.grantsTemporaryFullAccuracy = grantsTemporaryFullAccuracy
        self.confirmsLocationButton = confirmsLocationButton
    }

    public func currentState() -> AuthorizationState { state }

    public func requestAuthorization(_ prompt: AuthorizationPrompt, reply: AuthorizationReply) {
        guard let promptAnswer else { return reply(prompt.current) }
        var answer = prompt.current
        answer.status = promptAnswer
        answer.isOneTime = promptAnswerIsOneTime && promptAnswer == .authorizedWhenInUse
        reply(answer)
    }

    public func requestTemporaryFullAccuracy(_ prompt: FullAccuracyPrompt, reply: AuthorizationReply) {
        reply(prompt.current.afterTemporaryFullAccuracy(granted: grantsTemporaryFullAccuracy))
    }

    public func confirmLocationButton(current: AuthorizationState, reply: AuthorizationReply) {
        reply(confirmsLocationButton ? current.afterLocationButtonConfirmation : current)
    }
}

// MARK: The configuration file

extension StaticAuthorizationProvider {
    /// Reads the configuration from `text`.
    ///
    /// One `key = value` per line; `#` starts a comment; blank lines are ignored; every key is optional
    /// and may appear once. Defaults in brackets:
    ///
    /// ```
    /// # /etc/locationengine/authorization.conf
    /// status = always                  # not-determined | restricted | denied | when-in-use | always  [always]
    /// services = enabled               # enabled | disabled                                            [enabled]
    /// accuracy = full                  # full | reduced                                                [full]
    /// one-time = no                    # yes | no: the grant lapses at the end of a session            [no]
    /// prompt-answer = dismiss          # dismiss | deny | allow-once | when-in-use | always            [dismiss]
    /// temporary-full-accuracy = refuse # grant | refuse                                                [refuse]
    /// location-button = decline        # confirm | decline                                             [decline]
    /// ```
    ///
    /// - Throws: ``AuthorizationConfigurationError`` naming the line and what is wrong.
    public init(configuration text: String) throws(AuthorizationConfigurationError) {
        self.init()
        var seen: Set<String> = []
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = line.trimmingWhitespace
            if trimmed.isEmpty { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw AuthorizationConfigurationError(line: lineNumber, message: "expected `key = value`, got `\(trimmed)`")
            }
            let key = parts[0].trimmingWhitespace
            let value = parts[1].trimmingWhitespace
            guard seen.insert(key).inserted else {
                throw AuthorizationConfigurationError(line: lineNumber, message: "`\(key)` is set twice")
            }
            func choose<T>(_ choices: KeyValuePairs<String, T>) throws(AuthorizationConfigurationError) -> T {
                if let match = choices.first(where: { $0.key == value }) { return match.value }
                let allowed = choices.map(\.key).joined(separator: " | ")
                throw AuthorizationConfigurationError(line: lineNumber, message: "`\(key)` must be one of \(allowed), got `\(value)`")
            }
            switch key {
            case "status":
                state.status = try choose([
                    "not-determined": .notDetermined, "restricted": .restricted, "denied": .denied,
                    "when-in-use": .authorizedWhenInUse, "always": .authorizedAlways,
                ])
            case "services":
                state.servicesEnabled = try choose(["enabled": true, "disabled": false])
            case "accuracy":
                state.accuracy = try choose(["full": .full, "reduced": .reduced])
            case "one-time":
                state.isOneTime = try choose(["yes": true, "no": false])
            case "prompt-answer":
                (promptAnswer, promptAnswerIsOneTime) = try choose([
                    "dismiss": (nil, false), "deny": (.denied, false), "allow-once": (.authorizedWhenInUse, true),
                    "when-in-use": (.authorizedWhenInUse, false), "always": (.authorizedAlways, false),
                ])
            case "temporary-full-accuracy":
                grantsTemporaryFullAccuracy = try choose(["grant": true, "refuse": false])
            case "location-button":
                confirmsLocationButton = try choose(["confirm": true, "decline": false])
            default:
                throw AuthorizationConfigurationError(
                    line: lineNumber,
                    message: "unknown key `\(key)` (known: status, services, accuracy, one-time, prompt-answer, "
                        + "temporary-full-accuracy, location-button)")
            }
        }
        if state.isOneTime && !state.status.isGrant {
            throw AuthorizationConfigurationError(line: nil, message: "`one-time = yes` needs `status = when-in-use` or `always`")
        }
    }

    /// Reads the configuration file at `path` (format: ``init(configuration:)``; at most 64 KiB).
    /// - Throws: ``AuthorizationConfigurationError`` when the file cannot be read or is invalid.
    public init(contentsOfFile path: String) throws(AuthorizationConfigurationError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw AuthorizationConfigurationError(line: nil, message: "cannot read \(path): \(error)")
        }
        guard data.count <= 65_536 else {
            throw AuthorizationConfigurationError(line: nil, message: "\(path) is larger than 64 KiB")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw AuthorizationConfigurationError(line: nil, message: "\(path) is not UTF-8 text")
        }
        try self.init(configuration: text)
    }
}

/// An authorization configuration file could not be used.
public struct AuthorizationConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line at fault, when one is.
    public let line: Int?
    /// What is wrong.
    public let message: String

    public var description: String {
        if let line { return "authorization configuration, line \(line): \(message)" }
        return "authorization configuration: \(message)"
    }
}

extension StringProtocol {
    var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
