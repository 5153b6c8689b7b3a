import Foundation
import NIOCore
import ReceiverControl
import SyntheticGPS
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the servers of synthetic NMEA do with what a careless or hostile peer gives them: a file that cannot be
/// served, a client that never reads, a command flood, a path another server listens on. Each ends with a clear
/// error or a bound, never a trap or memory without end.
struct ServingLimitsTests {
    @Test func aCharacterDeviceThatIsNoTerminalIsRefusedNotTrappedOn() async throws {
        // Before, NIO's pipe channel trapped on epoll's refusal of /dev/null.
        do {
            _ = try await ReceiverPersonaServer.attach(
                terminal: "/dev/null", receiver: CommandedReceiver(scenario: .stationary(seed: 1), persona: .mediatek), timing: .manual)
            Issue.record("/dev/null was served")
        } catch {
            #expect("\(error)".contains("not a terminal or a FIFO"), "\(error)")
        }
    }

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed (apt-get install socat); it makes the pseudo-terminal pair"))
    func aTerminalWhoseHostHangsUpIsSeenClosed() async throws {
        let terminals = try await PseudoTerminalPair.make()
        let server = try await ReceiverPersonaServer.attach(
            terminal: terminals.device, receiver: CommandedReceiver(scenario: .stationary(seed: 1), persona: .mediatek), timing: .manual)
        terminals.unplug()
        // Before, nothing noticed: gpsgen slept out its --duration on a line gone.
        try await withDeadline(seconds: 30) { await server.lineClosed() }
        await server.close()
        await terminals.stop()
    }

    @Test func lateAnswersAreHeldUpToABound() {
        var receiver = CommandedReceiver(scenario: .stationary(seed: 1), persona: .mediatek, acknowledgements: .late)
        let flood = (0..<5_000).flatMap { _ in PMTKCommand.test.bytes }
        #expect(receiver.receive(flood, at: 1).isEmpty)
        let answers = String(decoding: receiver.output(through: 10), as: UTF8.self).components(separatedBy: "$PMTK001").count - 1
        #expect(answers == CommandedReceiver.mostLateReplies)
    }

    @Test func aClientThatSendsCommandsAndNeverReadsLosesTheirRepliesRatherThanQueueingThem() async throws {
        let server = try await ReceiverPersonaServer.listen(
            on: ListenAddress(host: "127.0.0.1", port: 0), receiver: CommandedReceiver(scenario: .stationary(seed: 1), persona: .mediatek))
        let port = try #require(server.address?.port)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        var small: Int32 = 4_096
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        // Commands in blocks, never a byte read, until the server says it dropped replies.
        let block = (0..<1_000).flatMap { _ in PMTKCommand.test.bytes }
        try await withDeadline(seconds: 60, blocking: {
            while server.repliesDropped == 0 {
                let sent = block.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { throw SyntheticGPSError.io("send failed: errno \(errno)") }
            }
        })
        #expect(server.repliesDropped > 0)
        await server.close()
    }

    @Test func aUnixSocketARunningServerListensOnIsNotTakenOverAndAStaleOneIsReused() async throws {
        try await withSocketPath { path in
            let first = try await NMEAFeedServer.start(on: ListenAddress(unixSocketPath: path))
            #expect(UnixSocketFile.at(path) == .listening)
            // Before, the second replaced the socket file, and the first never got another client.
            await #expect(throws: SyntheticGPSError.self) { _ = try await NMEAFeedServer.start(on: ListenAddress(unixSocketPath: path)) }
            await first.close()
            // A socket file nothing listens on (left by a run that was killed) is taken.
            let left = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(left) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
            }
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(left, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
            #expect(UnixSocketFile.at(path) == .stale)
            let second = try await NMEAFeedServer.start(on: ListenAddress(unixSocketPath: path))
            await second.close()
            #expect(FileManager.default.createFile(atPath: path, contents: Data("not a socket".utf8)))
            #expect(UnixSocketFile.at(path) == .notASocket)
            await #expect(throws: SyntheticGPSError.self) { _ = try await NMEAFeedServer.start(on: ListenAddress(unixSocketPath: path)) }
        }
    }

    @Test("a server on a Unix socket removes its socket file when it closes")
    func aClosingServerRemovesItsSocketFile() async throws {
        try await withSocketPath { path in
            let server = try await NMEAFeedServer.start(on: ListenAddress(unixSocketPath: path))
            #expect(UnixSocketFile.at(path) == .listening)
            await server.close()
            #expect(UnixSocketFile.at(path) == .absent, "the socket file went with the server")
        }
    }

    /// Runs `body` with a path for a Unix socket in a directory of its own, removed after it.
    private func withSocketPath(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("serving-limits-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body("\(directory)/nmea")
    }
}
