import Foundation
import NIOCore
import NIOPosix

/// Whether a `gpsd` binary is installed (CI installs Debian's `gpsd`).
let gpsdPath: String? = ["/usr/sbin/gpsd", "/usr/bin/gpsd", "/usr/local/sbin/gpsd", "/usr/local/bin/gpsd"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// `true` when gpsd can be run; the integration test is disabled otherwise.
let gpsdInstalled = gpsdPath != nil

/// One gpsd report, as much of gpsd_json(5) as the test reads.
struct GpsdReport: Decodable, Sendable {
    var `class`: String
    var mode: Int?
    var time: String?
    var lat: Double?
    var lon: Double?
    var altHAE: Double?
    var altMSL: Double?
    var speed: Double?
    var track: Double?
}

/// A failure of the gpsd harness itself (not of the code under test).
struct HarnessError: Error, CustomStringConvertible {
    let description: String
}

/// Stops a process started by a test and waits for it.
///
/// SIGKILL rather than `terminate()`: a child spawned from the test runner inherits its blocked signal
/// mask (SIGTERM and SIGINT are blocked there), so gpsd never sees a SIGTERM and would live on.
func stop(_ process: Process) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
}

/// A TCP port that was free a moment ago on 127.0.0.1 (bound to port 0, then released).
func freeLoopbackPort() async throws -> Int {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .bind(host: "127.0.0.1", port: 0)
        .get()
    let port = channel.localAddress?.port
    try await channel.close()
    guard let port else { throw HarnessError(description: "no port assigned") }
    return port
}

/// Connects to gpsd on 127.0.0.1:`port`, sends `?WATCH`, calls `onWatching` once gpsd acknowledges it,
/// then decodes every JSON line and hands it to `onReport` until that returns `false` or gpsd closes.
func watchGpsd(
    port: Int, onWatching: @Sendable () -> Void, onReport: (GpsdReport) -> Bool
) async throws {
    let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
    try await channel.executeThenClose { inbound, outbound in
        try await outbound.write(ByteBuffer(string: "?WATCH={\"enable\":true,\"json\":true};\n"))
        var pending = [UInt8]()
        let decoder = JSONDecoder()
        var watching = false
        for try await var chunk in inbound {
            pending += chunk.readBytes(length: chunk.readableBytes) ?? []
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = Data(pending[..<newline])
                pending.removeSubrange(...newline)
                guard let report = try? decoder.decode(GpsdReport.self, from: line) else { continue }
                if report.class == "WATCH", !watching {
                    watching = true
                    onWatching()
                }
                if !onReport(report) { return }
            }
        }
    }
}

/// Runs `body`, failing with a harness error if it has not finished after `seconds` (a guard against
/// a hung gpsd, never an expectation about timing).
func withDeadline<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
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
