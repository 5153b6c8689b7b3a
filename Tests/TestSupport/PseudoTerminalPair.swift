import Foundation

/// A pseudo-terminal pair made by socat (`pty,raw,echo=0` on both ends), standing in for a serial receiver:
/// the program under test opens ``host`` as it would `/dev/ttyUSB0`, the simulated receiver ``device``.
/// The test that makes it stops it.
public final class PseudoTerminalPair: Sendable {
    /// The end the host (the source, gpsd) opens.
    public let host: String
    /// The end the simulated receiver sits on.
    public let device: String
    private let directory: URL
    private let socat: ChildProcess

    private init(host: String, device: String, directory: URL, socat: ChildProcess) {
        self.host = host
        self.device = device
        self.directory = directory
        self.socat = socat
    }

    /// Starts socat and waits (bounded) for both links to appear. Needs ``Tools/socat``.
    public static func make() async throws -> PseudoTerminalPair {
        guard let path = Tools.socat else { throw HarnessError(description: "socat is not installed (apt-get install socat)") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let host = directory.appendingPathComponent("ttyGPS").path
        let device = directory.appendingPathComponent("ttyReceiver").path
        let socat = try ChildProcess(path, ["pty,raw,echo=0,link=\(host)", "pty,raw,echo=0,link=\(device)"])
        // Harness readiness (socat creating its links), bounded: not an outcome of the code under test.
        try await withDeadline(seconds: 20) {
            while !(FileManager.default.fileExists(atPath: host) && FileManager.default.fileExists(atPath: device)) {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        return PseudoTerminalPair(host: host, device: device, directory: directory, socat: socat)
    }

    /// Pulls the line at once: both ends go away, as when a USB receiver is unplugged.
    public func unplug() {
        socat.kill()
    }

    /// Stops socat and removes the links.
    public func stop() async {
        await socat.stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
