import LocationEngine
@testable import LocationSources
import SyntheticGPS
import Testing
import TestSupport

/// The fault matrix of ``ReceiverFaultMatrixTests`` over a real pseudo-terminal (socat), in real time, with the
/// NMEA source and the persona server as they run: every generation against every fault, through setup, power
/// save, sleep, wake and the deepest sleep. After each command, once a command it sent has been answered or
/// timed out, the driver's belief must come to what the receiver does; it is never a different state
/// (believed "unknown", costed as the dearest, is allowed while a setting waits for its output to show, which
/// on a fresh link takes a longest power-save period: the exact timing is the virtual-time matrix's). Nothing
/// may crash or hang: each step is bounded.
@Suite("Receiver fault matrix over a pty")
struct ReceiverFaultMatrixOverAPtyTests {
    typealias Generation = ReceiverFaultMatrixTests.Generation
    typealias Fault = ReceiverFaultMatrixTests.Fault

    static let commands: [ReceiverFaultMatrixTests.Command] = [.start(.high), .setMode(.medium), .stop(.standby), .start(.high), .stop(.off)]

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed (apt-get install socat); it makes the pseudo-terminal pair"),
        arguments: Generation.all, Fault.allCases)
    func theDriverNeverBelievesAStateTheReceiverIsNotIn(generation: Generation, fault: Fault) async throws {
        let rig = try await PersonaRig.pty(
            generation.persona, model: generation.model, behavior: fault.behavior, losesWakingBytes: fault == .losesWakingBytes,
            ubloxGeneration: generation.ublox)
        let fixInterval = PersonaRig.control(generation.model).fixInterval
        var running = false
        @Sendable func believed(_ running: Bool) -> VirtualReceiverLine.Setting {
            let statistics = rig.source.statistics.receiver
            return VirtualReceiverLine.believed(
                running: running, state: statistics.state, sleepConfirmed: statistics.sleepConfirmed, confirmedMode: statistics.confirmedMode,
                fixInterval: fixInterval)
        }
        @Sendable func actual() -> VirtualReceiverLine.Setting { rig.server.withReceiver { VirtualReceiverLine.actual($0, fixInterval: fixInterval) } }
        for command in Self.commands {
            @Sendable func resolved() -> Int {
                let statistics = rig.source.statistics.receiver
                return statistics.commandsConfirmed + statistics.commandsRefused + statistics.commandsUnanswered + statistics.commandsGarbled
                    + statistics.commandsLostWithLink
            }
            let resolvedBefore = resolved()
            let logsBefore = rig.logs.value.count
            switch command {
            case .start(let mode):
                running = true
                rig.start(mode)
            case .setMode(let mode): rig.source.setMode(mode)
            case .stop(let idle):
                running = false
                rig.source.stop(into: idle)
            }
            // A command the step sent answered or timed out — or, for a stop, the port closed without one (the
            // driver sends nothing to a receiver it cannot command) — none left queued or in flight (a step sends
            // several: after the first answer the receiver may take the next setting before the driver hears of
            // it), and the belief settled: the receiver's, or not known.
            let isRunning = running
            let isStop = if case .stop = command { true } else { false }
            @Sendable func stepDone() -> Bool {
                let answered = resolved() > resolvedBefore
                    || (isStop && rig.logs.value.dropFirst(logsBefore).contains { $0.contains("closing the port") })
                return answered && rig.source.statistics.receiver.commandsWaiting == 0
            }
            do {
                try await withDeadline(seconds: 40) {
                    while true {
                        let current = believed(isRunning)
                        if stepDone(), current == actual() || current == .unknown {
                            return
                        }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
            } catch {
                // What the driver counted says where it waits: a command still queued or in flight, or none resolved.
                Issue.record("\(generation.name), \(fault): after \(command) the driver believes \(believed(isRunning)), the receiver is \(actual()); its figures \(rig.source.statistics.receiver); it logged \(rig.logs.value.suffix(10))")
            }
            let (now, really) = (believed(isRunning), actual())
            #expect(now == really || now == .unknown, "\(generation.name), \(fault): after \(command) believed \(now), the receiver is \(really)")
        }
        await rig.shutDown()
    }
}
