/// What locbench reports instead of crashing.
public enum LocbenchError: Error, CustomStringConvertible {
    /// An argument is out of range or malformed.
    case badArgument(String)
    /// A file could not be read or written.
    case io(String)
    /// The run broke an invariant; the message holds the offending request's history.
    case invariantViolated(String)

    /// The message as locbench prints it, after the command line's own "Error: ".
    public var description: String {
        switch self {
        case .badArgument(let message): message
        case .io(let message): message
        case .invariantViolated(let message): "INVARIANT VIOLATED\n\(message)"
        }
    }
}
