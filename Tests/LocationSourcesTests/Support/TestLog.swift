import InMemoryLogging
import Logging

/// Where a source or an engine under test logs: kept in memory, not printed, so that a passing test
/// prints nothing above `info` (a newcomer would read a printed warning as a failure), and a test that
/// provokes warnings asserts on them here.
struct TestLog: Sendable {
    private let handler = InMemoryLogHandler()

    /// A logger into this log, down to `debug`.
    var logger: Logger {
        var logger = Logger(label: "test") { [handler] _ in handler }
        logger.logLevel = .debug
        return logger
    }

    /// Whether a message was logged at `level`.
    func contains(_ level: Logger.Level, _ message: String) -> Bool {
        handler.entries.contains { $0.level == level && $0.message.description == message }
    }

    /// How many entries are above `info`.
    var warningsAndErrors: Int { handler.entries.count { $0.level > .info } }
}

/// A logger for a test that does not look at the log.
func quietLogger() -> Logger { TestLog().logger }
