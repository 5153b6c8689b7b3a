import Foundation
import Glibc
import NIOConcurrencyHelpers
import LocationEngine
import NIOCore
import NIOPosix
import NMEA
import SyntheticGPS

/// A failure of the test harness itself (a tool that would not start, a guard that expired).
struct HarnessError: Error, CustomStringConvertible {
    let description: String
}

/// The first executable among `candidates`, or `nil`.
func executable(_ candidates: [String]) -> String? {
    candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Tools the integration tests run; CI installs them with `apt-get install -y gpsd gpsd-clients python3-gps socat`.
enum Tools {
    static let gpsd = executable(["/usr/sbin/gpsd", "/usr/bin/gpsd", "/usr/local/sbin/gpsd", "/usr/local/bin/gpsd"])
    static let socat = executable(["/usr/bin/socat", "/usr/local/bin/socat"])
}

/// The shared receiver logs (`../shared/nmea/` beside the package), or `nil` in a fresh clone.
enum SharedLogs {
    static let directory: URL? = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/nmea")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("bu353s4.log").path) ? url : nil
    }()

    static var available: Bool { directory != nil }

    /// The text of `name`.
    static func text(_ name: String) throws -> String {
        guard let directory else { throw HarnessError(description: "../shared/nmea is absent") }
        return try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }
}

/// Runs `body`, failing if it has not finished after `seconds`: a guard against a hang, never an
/// expectation about timing.
func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            throw HarnessError(description: "gave up after \(seconds) s")
        }
        return result
    }
}

/// A port on 127.0.0.1 that was free a moment ago (bound to port 0, then released).
func freeLoopbackPort() async throws -> Int {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .bind(host: "127.0.0.1", port: 0)
        .get()
    let port = channel.localAddress?.port
    try await channel.close()
    guard let port else { throw HarnessError(description: "no port assigned") }
    return port
}

/// A child process (gpsd, socat) that the test that started it stops.
///
/// Stopping uses SIGKILL: the test runner's threads block SIGTERM and a spawned child inherits that
/// signal mask, so a SIGTERM would never arrive. Waiting for the exit suspends rather than blocks,
/// so a test never ties up one of the few threads of the cooperative pool.
final class ChildProcess: @unchecked Sendable {
    // @unchecked: `Process` is not Sendable. It is configured and run in `init`; afterwards only its
    // immutable `processIdentifier` is read, and its termination handler touches only `exit`.
    private let process = Process()
    private let exit = NIOLockedValueBox<(exited: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init(_ path: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exit = self.exit
        process.terminationHandler = { _ in
            let waiters = exit.withLockedValue { state in
                state.exited = true
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
        try process.run()
    }

    /// Sends SIGKILL without waiting (a safety net for `defer`).
    func kill() {
        guard !exit.withLockedValue({ $0.exited }) else { return }
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// Kills the process and waits until it has exited.
    func stop() async {
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

/// Synthetic NMEA: one block of sentences per epoch, and the fix each epoch should yield.
struct SyntheticStream {
    var blocks: [String] = []
    var epochs: [SyntheticEpoch] = []

    /// The first `count` epochs of a drive (seed `seed`), as NMEA blocks.
    init(count: Int, seed: UInt64 = 11) {
        var receiver = SyntheticReceiver(scenario: .drive(seed: seed), mode: .best)
        receiver.generate(count: count, into: &epochs)
        var writer = NMEAWriter()
        for epoch in epochs {
            var text = ""
            writer.write(epoch, to: &text)
            blocks.append(text)
        }
    }

    /// The fixes the stream carries, by receiver time.
    var fixesByTime: [Double: Location] {
        var result: [Double: Location] = [:]
        for epoch in epochs { if let location = epoch.location { result[epoch.unixTime] = location } }
        return result
    }
}

/// Whether two fixes agree to NMEA's printed precision.
func samePosition(_ a: Location, _ b: Location) -> Bool {
    abs(a.latitude - b.latitude) < 1e-6 && abs(a.longitude - b.longitude) < 1e-6
}

extension SubscriptionEvent {
    var location: Location? {
        if case .location(let update) = self { return update.location }
        return nil
    }

    var sourceErrorCode: String? {
        if case .sourceError(let error) = self { return error.code }
        return nil
    }
}
