/// An error from the synthetic receiver, its writers or its feed server, saying what went wrong and
/// what to do about it.
public struct SyntheticGPSError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case unknownScenario
        case invalidArgument
        case io
    }

    private let code: Code
    /// What happened and what to do.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// No scenario has this name.
    public static func unknownScenario(_ name: String) -> SyntheticGPSError {
        SyntheticGPSError(
            .unknownScenario, "unknown scenario '\(name)'; choose one of: \(Scenario.names.joined(separator: ", "))"
        )
    }

    /// A parameter is out of range or malformed.
    public static func invalidArgument(_ message: String) -> SyntheticGPSError {
        SyntheticGPSError(.invalidArgument, message)
    }

    /// Reading, writing, binding or connecting failed.
    public static func io(_ message: String) -> SyntheticGPSError {
        SyntheticGPSError(.io, message)
    }

    /// Whether this is an unknown-scenario error.
    public var isUnknownScenario: Bool { code == .unknownScenario }
    /// Whether this is an invalid-argument error.
    public var isInvalidArgument: Bool { code == .invalidArgument }
    /// Whether this is an I/O error.
    public var isIO: Bool { code == .io }

    /// The message.
    public var description: String { message }
}
