import ArgumentParser
import Foundation
import UnixSignals

/// SIGINT (Ctrl-C) and SIGTERM end a real-time run the way its own end does: the server closes (a Unix socket
/// file it made is removed, a persona's meter is printed), and gpsgen then exits as a program the signal ended
/// does, with status 128 + the signal's number. Without this the default action ended the process at once.
enum Interruption {
    /// How a run raced against the signals ended.
    enum Outcome<Value: Sendable>: Sendable {
        case finished(Value)
        case interrupted(UnixSignal)
    }

    /// SIGINT and SIGTERM, caught from now on. Made before the run says it is ready: a signal sent the moment it
    /// says so is then caught, not handled by the default action.
    static func signals() async -> UnixSignalsSequence {
        await UnixSignalsSequence(trapping: .sigint, .sigterm)
    }

    /// Runs `body` until it returns, or until one of `signals` arrives, when `body` is cancelled.
    static func race<Value: Sendable>(
        _ signals: UnixSignalsSequence, _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Outcome<Value> {
        try await withThrowingTaskGroup(of: Outcome<Value>?.self) { group in
            group.addTask {
                for await signal in signals { return .interrupted(signal) }
                return nil
            }
            group.addTask { .finished(try await body()) }
            defer { group.cancelAll() }
            // A signal sequence that ended without a signal (it ends when cancelled) decides nothing.
            while let next = try await group.next() {
                if let outcome = next { return outcome }
            }
            throw CancellationError()
        }
    }

    /// Says that `signal` stopped the run, and throws the exit status that tells the caller so.
    static func exit(for signal: UnixSignal) -> ExitCode {
        FileHandle.standardError.write(Data("gpsgen: stopped by \(signal)\n".utf8))
        return ExitCode(128 + signal.rawValue)
    }
}
