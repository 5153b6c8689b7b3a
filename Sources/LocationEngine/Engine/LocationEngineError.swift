/// An error of the engine's lifetime.
///
/// A struct wrapping a private code, so that new cases never break a caller's `switch`.
public struct LocationEngineError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case alreadyRunning
    }

    private let code: Code

    /// ``LocationEngine/run()`` was called while another call of it was still running: an engine has
    /// one lifetime at a time.
    public static let alreadyRunning = LocationEngineError(code: .alreadyRunning)

    public var description: String {
        switch code {
        case .alreadyRunning: "LocationEngine.run() is already running: an engine runs once at a time"
        }
    }
}
