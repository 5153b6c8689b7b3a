import Foundation
import ReceiverControl
import SyntheticGPS
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// A command's acknowledgement to the receiver's change of state, over a real pseudo-terminal (socat): the host
/// writes the MediaTek and u-blox standby, rate and power-save commands byte for byte, the persona answers on the
/// line, and what it does after — its metered current, the NMEA it sends — must follow the command within one fix
/// interval of the acknowledgement. The persona runs on virtual time (``ReceiverPersonaServer/Timing/manual``), so
/// every instant below is exact; the line carries the bytes for real.
@Suite(.serialized)
struct AcknowledgementToStateTests {
    /// One command and the state it must bring.
    struct Command: Sendable, CustomTestStringConvertible {
        var name: String
        var persona: ReceiverPersona
        /// Commands sent first, each acknowledged (a u-blox power-save period before power save is switched on).
        var setup: [[UInt8]] = []
        var bytes: [UInt8]
        /// The acknowledgement on the line; `nil` for a command the part never acknowledges (RXM-PMREQ).
        var acknowledgement: [UInt8]?
        /// The current the receiver draws from then on, mA.
        var current: Double
        /// The fix interval from then on, seconds; `nil`: the output stops.
        var interval: Double?

        var testDescription: String { name }

        static let all: [Command] = [
            Command(
                name: "MediaTek standby", persona: .mediatek, bytes: PMTKCommand.standby.bytes,
                acknowledgement: PMTKReply.acknowledgement(command: 161, flag: .succeeded).packet.bytes, current: 2, interval: nil),
            Command(
                name: "MediaTek fix interval 5 s", persona: .mediatek, bytes: PMTKCommand.fixInterval(milliseconds: 5000).bytes,
                acknowledgement: PMTKReply.acknowledgement(command: 220, flag: .succeeded).packet.bytes, current: 20, interval: 5),
            Command(
                name: "MediaTek periodic standby 3 s on / 12 s off", persona: .mediatek,
                bytes: PMTKCommand.periodic(.periodicStandby(PMTKDutyCycle(run: 3000, sleep: 12000))).bytes,
                acknowledgement: PMTKReply.acknowledgement(command: 225, flag: .succeeded).packet.bytes, current: (20 * 3 + 2 * 12) / 15.0,
                interval: 15),
            Command(
                name: "u-blox power save at 10 s", persona: .ublox,
                setup: [UBXCommand.powerManagement(UBXPowerManagement(updatePeriodMilliseconds: 10_000, cyclicTracking: true)).bytes],
                bytes: UBXCommand.receiverManagement(powerSave: true).bytes,
                acknowledgement: UBXReply.acknowledged(messageClass: 0x06, messageID: 0x11).frame.bytes, current: 9.5, interval: 10),
            Command(
                name: "u-blox rate 2 s", persona: .ublox, bytes: UBXCommand.rate(UBXRate(measurementMilliseconds: 2000)).bytes,
                acknowledgement: UBXReply.acknowledged(messageClass: 0x06, messageID: 0x08).frame.bytes, current: 29, interval: 2),
            Command(
                name: "u-blox backup (RXM-PMREQ, never acknowledged)", persona: .ublox,
                bytes: UBXCommand.powerManagementRequest(.backupUntilWoken).bytes, acknowledgement: nil, current: 0.020, interval: nil),
        ]
    }

    /// Virtual time moves in steps this long (exact in binary, so the 1 Hz epochs fall on steps).
    private static let step = 0.25

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed (apt-get install socat); it makes the pseudo-terminal pair"), arguments: Command.all)
    func theStateChangesWithinOneFixIntervalOfTheAcknowledgement(_ command: Command) async throws {
        let terminals = try await PseudoTerminalPair.make()
        let events = Observed<[ReceiverPersonaServer.Event]>([])
        let server = try await ReceiverPersonaServer.attach(
            terminal: terminals.device, receiver: CommandedReceiver(scenario: .stationary(seed: 3), persona: command.persona), timing: .manual,
            observer: { event in events.update { $0.append(event) } })
        let host = try HostEnd(path: terminals.host)
        defer { host.close() }
        var line = Line(server: server, host: host)

        // Tracking at 1 Hz after a hot start.
        try await line.advance(to: 10)
        let fixesBefore = line.fixTimes
        #expect(fixesBefore.count >= 7, "tracking before the command: fixes at \(fixesBefore)")
        let interval = 1.0
        for setup in command.setup { try await line.send(setup, acknowledgedBy: Self.acknowledgement(of: setup)) }
        try await line.advance(to: 10.5)
        let lastFixBefore = try #require(line.fixTimes.last)
        let currentBefore = server.meter.current

        // The command, and its acknowledgement on the host's side of the line.
        try await line.send(command.bytes, acknowledgedBy: command.acknowledgement)
        if command.acknowledgement == nil {
            // Never acknowledged: the receiver's own log says when it obeyed.
            try await withDeadline(seconds: 20) {
                await events.waitUntil { $0.contains { if case .obeyed = $0 { true } else { false } } }
            }
        }
        let acknowledgedAt = server.elapsed
        let currentAtAcknowledgement = server.meter.current

        // One fix interval of the old rate after the acknowledgement: the old schedule's next epoch must not come.
        try await line.advance(to: acknowledgedAt + interval)
        let fixesInTheInterval = line.fixTimes.filter { $0 > acknowledgedAt }
        #expect(currentAtAcknowledgement == command.current, "current \(currentBefore) → \(currentAtAcknowledgement) mA at the acknowledgement")
        #expect(fixesInTheInterval.isEmpty, "\(command.name): fixes at the old rate after the acknowledgement at \(acknowledgedAt) s: \(fixesInTheInterval)")

        if let newInterval = command.interval {
            // The next fix comes one new interval after the last one, and the next after that as well.
            try await line.advance(to: lastFixBefore + 2 * newInterval + Self.step)
            let after = line.fixTimes.filter { $0 > acknowledgedAt }
            #expect(after.count >= 2 && abs(after[0] - (lastFixBefore + newInterval)) < 1e-9 && abs(after[1] - after[0] - newInterval) < 1e-9,
                "\(command.name): fixes after the acknowledgement \(after), the last before at \(lastFixBefore)")
        } else {
            try await line.advance(to: acknowledgedAt + 60)
            #expect(line.fixTimes.allSatisfy { $0 <= acknowledgedAt }, "\(command.name): the output stopped")
        }
        #expect(host.received.count == line.expected, "every byte the receiver sent crossed the line")
        await server.close()
        await terminals.stop()
    }

    /// The acknowledgement a u-blox sends a CFG message (the only setup commands used).
    private static func acknowledgement(of bytes: [UInt8]) -> [UInt8] {
        UBXReply.acknowledged(messageClass: bytes[2], messageID: bytes[3]).frame.bytes
    }

    /// The persona on virtual time and what has crossed the line from it.
    private struct Line {
        let server: ReceiverPersonaServer
        let host: HostEnd
        /// The bytes the receiver has sent (NMEA and acknowledgements): what the host must have read.
        var expected = 0
        /// When each fix was sent (the virtual time of the step that sent it).
        var fixTimes: [Double] = []

        /// Moves the receiver's time to `elapsed` in steps, then waits (bounded) for the host to read all it sent.
        mutating func advance(to elapsed: Double) async throws {
            var now = server.elapsed
            while now < elapsed - 1e-9 {
                now = min(elapsed, (now / AcknowledgementToStateTests.step).rounded(.down) * AcknowledgementToStateTests.step + AcknowledgementToStateTests.step)
                let bytes = server.advance(to: now)
                expected += bytes.count
                let fixes = String(decoding: bytes, as: UTF8.self).components(separatedBy: "RMC,").count - 1
                fixTimes += Array(repeating: now, count: fixes)
            }
            try await host.waitUntil(count: expected)
        }

        /// Writes `bytes` on the host's side and waits (bounded) for `acknowledgement` to come back.
        mutating func send(_ bytes: [UInt8], acknowledgedBy acknowledgement: [UInt8]?) async throws {
            try host.write(bytes)
            guard let acknowledgement else { return }
            expected += acknowledgement.count
            try await host.waitUntil(count: expected)
            #expect(Array(host.received.suffix(acknowledgement.count)) == acknowledgement, "acknowledged on the line")
        }
    }

    /// The host's end of the line, opened as a driver opens a serial device: raw, non-blocking.
    private final class HostEnd: @unchecked Sendable {  // Used by one test task at a time, never concurrently.
        private let descriptor: CInt
        private(set) var received: [UInt8] = []

        init(path: String) throws {
            descriptor = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { throw HarnessError(description: "cannot open \(path): errno \(errno)") }
            var attributes = termios()
            if tcgetattr(descriptor, &attributes) == 0 {
                cfmakeraw(&attributes)
                _ = tcsetattr(descriptor, TCSANOW, &attributes)
            }
        }

        func write(_ bytes: [UInt8]) throws {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { writeToLine(descriptor, $0.baseAddress, $0.count) }
                guard written > 0 else { throw HarnessError(description: "write to the line failed: errno \(errno)") }
                offset += written
            }
        }

        /// Reads until `count` bytes have been received in all (harness readiness, bounded: not an outcome).
        func waitUntil(count: Int) async throws {
            try await withDeadline(seconds: 20) { [self] in
                while self.drain() < count { try await Task.sleep(for: .milliseconds(5)) }
            }
        }

        private func drain() -> Int {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { return received.count }
                received += buffer[..<count]
            }
        }

        func close() {
            closeLine(descriptor)
        }
    }
}

/// `write(2)` and `close(2)` at file scope, so that the names are not taken for the host end's methods.
private func writeToLine(_ descriptor: CInt, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

private func closeLine(_ descriptor: CInt) {
    _ = close(descriptor)
}
