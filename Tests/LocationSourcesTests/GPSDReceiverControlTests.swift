import Foundation
import LocationEngine
@testable import LocationSources
import NIOCore
import NIOPosix
import ReceiverControl
import SyntheticGPS
import Testing
import TestSupport

/// Receiver power commands through a real gpsd (opt-in): the synthetic MediaTek sits on a pseudo-terminal that
/// gpsd reads; the gpsd source's `?DEVICE` requests reach it byte for byte.
struct GPSDReceiverControlTests {
    @Test func requestsCarryTheCommandAsHex() {
        let control = GPSDReceiverControl(devicePath: "/dev/ttyUSB0", model: .mediatek)
        for idle in [ReceiverPowerProfile.IdleState.standby, .off] {
            #expect(control.sleep(into: idle).map { String(buffer: $0) } == ["?DEVICE={\"path\":\"/dev/ttyUSB0\",\"hexdata\":\"24504d544b3136312c302a32380d0a\"}\n"])
        }
        #expect(control.sleep(into: .on).isEmpty, "stopped into on, the receiver is left tracking")
        #expect(control.setUp(.high).map { String(buffer: $0) } == [
            "?DEVICE={\"path\":\"/dev/ttyUSB0\",\"hexdata\":\"24504d544b3232352c302a32420d0a\"}\n",
            "?DEVICE={\"path\":\"/dev/ttyUSB0\",\"hexdata\":\"24504d544b3232302c313030302a31460d0a\"}\n",
        ])
        #expect(GPSDReceiverControl(devicePath: "/dev/x", model: .autodetect).sleep(into: .off).isEmpty, "autodetect needs replies gpsd keeps to itself")
        // A u-blox on its own USB port waits in power save: a forced backup would take it off the bus.
        let usb = GPSDReceiverControl(devicePath: "/dev/ttyACM0", model: .ublox)
        #expect(usb.sleep(into: .off).count == 2 && usb.sleep(into: .off) == usb.setUp(.lowest))
        // A receiver's own USB port behind a network bridge gpsd reads: the connection says so.
        let bridged = GPSDReceiverControl(devicePath: "tcp://bridge:4000", model: .ublox, connection: .nativeUSB)
        #expect(bridged.sleep(into: .off) == bridged.setUp(.lowest))
        #expect(GPSDReceiverControl(devicePath: "tcp://bridge:4000", model: .ublox).sleep(into: .off).count == 1, "a UART backs up")
    }

    @Test func aSleepCommandWithGpsdUnreachableIsCountedAndLoggedNotSwallowed() async throws {
        let port = try await freeLoopbackPort()   // nothing listens there
        let source = GPSDLocationSource(
            configuration: GPSDConfiguration(port: port, receiverControl: GPSDReceiverControl(devicePath: "/dev/ttyUSB0", model: .mediatek)),
            logger: quietLogger())
        source.start(mode: .high, events: SourceEventSink { _ in })
        source.stop()
        #expect(source.statistics.receiverCommandsNotSent == 1, "the standby command had no connection to go on")
        // Again while stopped, nothing changes; a stop into `on` then into standby sends the standby.
        source.stop()
        #expect(source.statistics.receiverCommandsNotSent == 1)
        source.start(mode: .high, events: SourceEventSink { _ in })
        source.stop(into: .on)
        source.stop(into: .standby)
        #expect(source.statistics.receiverCommandsNotSent == 2)
    }

    /// A gpsd source commanding a MediaTek at /dev/ttyUSB0, started in high, once `gpsd` has received its set-up.
    private func startedSettingUp(through gpsd: TestTCPServer) async throws -> GPSDLocationSource {
        let source = GPSDLocationSource(
            configuration: GPSDConfiguration(port: gpsd.port, receiverControl: GPSDReceiverControl(devicePath: "/dev/ttyUSB0", model: .mediatek)),
            logger: quietLogger())
        source.start(mode: .high, events: SourceEventSink { _ in })
        let setUp = #"24504d544b3232302c313030302a31460d0a"#   // $PMTK220,1000*1F, the last set-up command
        try await withDeadline(seconds: 30) { await gpsd.waitUntil { $0.receivedText.contains(setUp) } }
        return source
    }

    @Test("a receiver gpsd still holds, asleep and silent, is woken on gpsd's DEVICES entry for it: no TPV will come to wait for")
    func aSleepingReceiverGpsdStillHoldsIsWokenOnItsDevicesEntry() async throws {
        let gpsd = try await TestTCPServer.start { client in
            client.send(#"{"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14}"# + "\n")
            client.send(#"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyUSB0","driver":"MTK-3301","activated":"2026-01-01T00:00:00.000Z"}]}"# + "\n")
            client.send(#"{"class":"WATCH","enable":true,"json":true}"# + "\n")
        }
        let source = try await startedSettingUp(through: gpsd)
        source.stop()
        await gpsd.close()
    }

    @Test("stopped while gpsd streams reports it has not read, the source ends the connection cleanly: gpsd reads the standby command and the un-watch, then the end, not a reset that drops them")
    func theStandbyCommandReachesGpsdWhileItStreams() async throws {
        let gpsd = try await TestTCPServer.start { client in
            client.send(#"{"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14}"# + "\n")
            // The first report sets the receiver up.
            client.send(#"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2026-01-01T00:00:05.000Z","lat":52.5,"lon":13.4,"eph":3}"# + "\n")
        }
        let source = try await startedSettingUp(through: gpsd)
        // Megabytes of reports on their way as the source stops: far more than it reads before it closes.
        let report = #"{"class":"SKY","device":"/dev/ttyUSB0","hdop":0.96,"nSat":9,"uSat":9}"# + "\n"
        let burst = String(repeating: report, count: 65_536 / report.utf8.count)
        for _ in 0..<64 { gpsd.broadcast(burst) }
        source.stop()
        try await withDeadline(seconds: 30) { await gpsd.waitUntil { $0.disconnections == 1 } }
        let record = gpsd.record
        #expect(record.errors.isEmpty, "the connection ended with \(record.errors), not an end")
        let standby = #"24504d544b3136312c302a32380d0a"#   // $PMTK161,0*28
        #expect(record.receivedText.contains(standby), "the standby command reached gpsd")
        #expect(record.receivedText.hasSuffix(GPSDSession.unwatchCommand), "the un-watch came last")
        await gpsd.close()
    }

    @Test(.enabled(if: Tools.socat != nil && Tools.gpsd != nil, "needs socat and gpsd (Scripts/bootstrap.sh installs both)"))
    func aMediaTekBehindGpsdIsSetUpAndStoodByThroughGpsd() async throws {
        let terminals = try await PseudoTerminalPair.make()
        defer { terminals.unplug() }
        let device = terminals.host
        let events = Observed<[ReceiverPersonaServer.Event]>([])
        let persona = try await ReceiverPersonaServer.attach(
            terminal: terminals.device, receiver: CommandedReceiver(scenario: .stationary(seed: 5), persona: .mediatek),
            observer: { event in events.update { $0.append(event) } })
        let port = try await freeLoopbackPort()
        // -n: gpsd opens the device at once, before it drops root (the pseudo-terminal belongs to root).
        // -D 2: gpsd says what it does with the device and its clients, kept for the report below.
        let gpsd = try ChildProcess(Tools.gpsd!, ["-N", "-n", "-D", "2", "-S", String(port), device], keepingErrors: true)
        defer { gpsd.kill() }
        try await withDeadline(seconds: 20) {
            while (try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get().close()) == nil {
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        let source = GPSDLocationSource(
            configuration: GPSDConfiguration(port: port, receiverControl: GPSDReceiverControl(devicePath: device, model: .mediatek)),
            logger: quietLogger())
        source.start(mode: .high, events: SourceEventSink { _ in })
        // What the receiver saw, printable, and what became of gpsd, when a wait gives up.
        func report(_ error: any Error) -> any Error {
            let seen = events.value.map { event -> String in
                guard case .received(let bytes) = event else { return "\(event)" }
                return String(decoding: bytes.map { (0x20...0x7E).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
            }
            Issue.record("""
                the receiver behind gpsd saw: \(seen.suffix(12)); the source counted \(source.statistics); \
                gpsd is \(gpsd.state) and last said:
                \(gpsd.errorOutput(lastLines: 30))
                """)
            return error
        }
        // Generous deadlines: the wait is for a real gpsd, which first probes the device for other receivers'
        // protocols — the whole test took 75–137 s among the other suites and 346–561 s under ThreadSanitizer,
        // a 30 s wait once gave up just as the receiver obeyed, and a 120 s one once gave up with the receiver
        // obeying after it (gpsd forwarded the command only once it had told the device apart, its probes
        // hunting through other protocols meanwhile). They only bound a hang: nothing here is timed.
        do {
            try await withDeadline(seconds: 300) { await events.waitUntil { $0.contains(.obeyed("$PMTK220,1000*1F")) } }
        } catch {
            throw report(error)
        }
        source.stop()
        do {
            try await withDeadline(seconds: 300) { await events.waitUntil { $0.contains(.phase(.standby)) } }
        } catch {
            throw report(error)
        }
        // In standby at 2 mA — unless gpsd has written to the device since (a probe, a setting of its own, as it
        // may once its client has let the device go): any byte wakes a MediaTek, and then it tracks again, woken by
        // gpsd, not by the source. The current is read first: the bytes that woke it are recorded before it wakes.
        let current = persona.withReceiver { $0.meter.current }
        let seen = events.value
        let sinceStandby = seen[(seen.lastIndex(of: .phase(.standby)) ?? seen.endIndex)...]
        let wokenByGpsd = sinceStandby.contains { if case .received = $0 { true } else { false } }
        #expect(current == 2 || wokenByGpsd, "at \(current) mA after standby with nothing written since: \(sinceStandby)")
        await persona.close()
        await gpsd.stop()
        await terminals.stop()
    }
}
