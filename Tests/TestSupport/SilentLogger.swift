import Logging

/// A logger that drops everything: for the engines and sources a test makes, so that a passing run prints only
/// its results (a test that checks what is logged collects it in memory instead).
public let silentLogger = Logger(label: "tests") { _ in SwiftLogNoOpLogHandler() }
