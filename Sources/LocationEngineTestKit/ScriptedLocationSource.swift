import LocationEngine
import NIOConcurrencyHelpers

/// An in-memory `LocationSource` driven by the test: it records what the engine asks of it and
/// emits exactly the fixes and errors the test scripts, while the engine has it running.
///
/// ```swift
/// let source = ScriptedLocationSource()
/// let engine = LocationEngine(source: source, clock: clock)
/// let id = engine.location(accuracy: .block, timeout: .seconds(10)) { result in … }
/// await engine.sync()
/// source.emit(Location(latitude: 1, longitude: 2, horizontalAccuracy: 50))
/// await engine.sync()
/// ```
public final class ScriptedLocationSource: LocationSource, Sendable {
    /// One thing the engine did to the source.
    public enum Command: Sendable, Hashable {
        case start(PowerMode)
        case setMode(PowerMode)
        case stop
    }

    private struct State {
        var sink: SourceEventSink?
        var mode: PowerMode?
        var commands: [Command] = []
    }

    private let state = NIOLockedValueBox(State())

    public let capabilities: SourceCapabilities

    /// Creates a source; by default it provides course.
    public init(capabilities: SourceCapabilities = SourceCapabilities(providesCourse: true)) {
        self.capabilities = capabilities
    }

    public func start(mode: PowerMode, events: SourceEventSink) {
        state.withLockedValue {
            $0.sink = events
            $0.mode = mode
            $0.commands.append(.start(mode))
        }
    }

    public func setMode(_ mode: PowerMode) {
        state.withLockedValue {
            $0.mode = mode
            $0.commands.append(.setMode(mode))
        }
    }

    public func stop() {
        state.withLockedValue {
            $0.sink = nil
            $0.mode = nil
            $0.commands.append(.stop)
        }
    }

    /// Whether the engine has the source running.
    public var isRunning: Bool { state.withLockedValue { $0.sink != nil } }

    /// The mode the engine runs the source in, or `nil` when off.
    public var mode: PowerMode? { state.withLockedValue { $0.mode } }

    /// Every command the engine issued, in order.
    public var commands: [Command] { state.withLockedValue { $0.commands } }

    /// Emits a fix `age` old, if running. Returns whether it was emitted.
    @discardableResult
    public func emit(_ location: Location, age: Duration = .zero) -> Bool {
        send(.location(location, age: age))
    }

    /// Emits a transient error, if running.
    @discardableResult
    public func emitTransientError(_ error: SourceError) -> Bool { send(.transientError(error)) }

    /// Emits a fatal error, if running.
    @discardableResult
    public func emitFatalError(_ error: SourceError) -> Bool { send(.fatalError(error)) }

    private func send(_ event: SourceEvent) -> Bool {
        guard let sink = state.withLockedValue({ $0.sink }) else { return false }
        sink.send(event)
        return true
    }
}
