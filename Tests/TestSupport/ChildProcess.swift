import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// The first executable among `candidates`, or `nil`.
public func executable(_ candidates: [String]) -> String? {
    candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Tools the integration tests run; CI installs them (`Scripts/bootstrap.sh`).
public enum Tools {
    /// gpsd, or `nil` when it is not installed.
    public static let gpsd = executable(["/usr/sbin/gpsd", "/usr/bin/gpsd", "/usr/local/sbin/gpsd", "/usr/local/bin/gpsd"])
    /// socat, or `nil` when it is not installed.
    public static let socat = executable(["/usr/bin/socat", "/usr/local/bin/socat"])
    /// The D-Bus daemon, or `nil` when it is not installed.
    public static let dbusDaemon = executable(["/usr/bin/dbus-daemon", "/usr/local/bin/dbus-daemon"])
    /// GeoClue2's service, or `nil` when it is not installed.
    public static let geoclue = executable(["/usr/libexec/geoclue", "/usr/lib/geoclue-2.0/geoclue", "/usr/local/libexec/geoclue"])
    /// GeoClue's demo agent, or `nil` when it is not installed.
    public static let geoclueAgent = executable([
        "/usr/libexec/geoclue-2.0/demos/agent", "/usr/lib/geoclue-2.0/demos/agent", "/usr/local/libexec/geoclue-2.0/demos/agent",
    ])
}

/// A child process (gpsd, socat) that the test that started it stops.
///
/// Stopping uses SIGKILL: the test runner's threads block SIGTERM and a spawned child inherits that
/// signal mask, so a SIGTERM would never arrive. Waiting for the exit suspends rather than blocks,
/// so a test never ties up one of the few threads of the cooperative pool.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `Process` is not Sendable. It is configured and run in `init`; afterwards only its
    // immutable `processIdentifier` is read, and its termination handler touches only `exit`.
    private let process = Process()
    private let exit = NIOLockedValueBox<(exited: Bool, how: String?, waiters: [CheckedContinuation<Void, Never>])>((false, nil, []))
    /// Where the child's standard error goes when the test keeps it, removed when the process is released.
    private let errorLog: URL?

    /// Starts `path` with `arguments`, its standard output discarded; `environment` adds to the test's. With
    /// `keepingErrors`, its standard error goes to a file of its own that ``errorOutput(lastLines:)`` reads
    /// (a file, not a pipe: a pipe nobody drains would stop a chatty child).
    public init(_ path: String, _ arguments: [String], environment: [String: String] = [:], keepingErrors: Bool = false) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        // Not the test process's standard input: a test may put a pipe of its own there (reading it as a source).
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        if keepingErrors {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).stderr")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: log)
            errorLog = log
        } else {
            process.standardError = FileHandle.nullDevice
            errorLog = nil
        }
        let exit = self.exit
        process.terminationHandler = { process in
            let how = process.terminationReason == .uncaughtSignal
                ? "killed by signal \(process.terminationStatus)" : "exited with status \(process.terminationStatus)"
            let waiters = exit.withLockedValue { state in
                state.exited = true
                state.how = how
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        try process.run()
    }

    deinit {
        if let errorLog { try? FileManager.default.removeItem(at: errorLog) }
    }

    /// How the process ended ("exited with status 1", "killed by signal 9"), or "running".
    public var state: String {
        exit.withLockedValue { $0.how ?? "running" }
    }

    /// The last `lastLines` lines the process wrote to its standard error, when the test keeps them.
    public func errorOutput(lastLines: Int = 20) -> String {
        guard let errorLog, let data = FileManager.default.contents(atPath: errorLog.path) else { return "(not kept)" }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").suffix(lastLines).joined(separator: "\n")
    }

    /// Sends SIGKILL without waiting (a safety net for `defer`).
    public func kill() { send(SIGKILL) }

    /// Sends `signal` (SIGSTOP to freeze the process, SIGCONT to let it go on) unless it has exited.
    public func send(_ signal: Int32) {
        guard !exit.withLockedValue({ $0.exited }) else { return }
        _ = Glibc.kill(process.processIdentifier, signal)
    }

    /// Kills the process and waits until it has exited.
    public func stop() async {
        kill()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let exited = exit.withLockedValue { state in
                if !state.exited { state.waiters.append(continuation) }
                return state.exited
            }
            if exited { continuation.resume() }
        }
    }
}
