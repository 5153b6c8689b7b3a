import LocationEngine
@testable import LocationSources
import ReceiverControl
import SyntheticGPS
import Testing

/// Every command the driver sends, against every fault a receiver shows, for the MediaTek, the u-blox 7 (whose
/// MON-VER names no protocol), M8 (on a UART and on its own USB port) and M10 personas, with each power-save
/// setting (5, 20 and 60 s), on virtual time with the driver's default deadlines: after each command, once its
/// confirmation window has passed, what the driver believes (and tells the engine) must be what the receiver
/// does (not "unknown", which the engine would cost as the dearest state: every fault leaves evidence within
/// the window); and a receiver without fault does what the engine asked.
///
/// Faults that hit one command and not the next are in ``ReceiverFaultMatrixPerCommandTests``; the same matrix
/// runs over a real pseudo-terminal, in real time, in ``ReceiverFaultMatrixOverAPtyTests``.
@Suite("Receiver fault matrix")
struct ReceiverFaultMatrixTests {
    /// A receiver generation the driver commands.
    struct Generation: Sendable, CustomTestStringConvertible {
        var name: String
        var persona: ReceiverPersona
        var model: ReceiverModel
        var ublox = UbloxGeneration.m8
        /// Attached by its own USB port (and configured so).
        var nativeUSB = false
        var testDescription: String { name }

        /// The generations the pty matrix runs.
        static let all = [
            Generation(name: "MediaTek", persona: .mediatek, model: .mediatek),
            Generation(name: "u-blox M8", persona: .ublox, model: .ublox),
            Generation(name: "u-blox M10", persona: .ublox, model: .ublox, ublox: .m10),
        ]
        /// Those and a u-blox 7 without PROTVER and a u-blox M8 on its own USB port.
        static let everyAttachment =
            all + [
                Generation(name: "u-blox 7", persona: .ublox, model: .ublox, ublox: .u7),
                Generation(name: "u-blox M8 on USB", persona: .ublox, model: .ublox, nativeUSB: true),
            ]

        func receiver(_ fault: Fault) -> CommandedReceiver {
            var receiver = CommandedReceiver(scenario: .stationary(seed: 3), persona: persona, acknowledgements: fault.behavior)
            receiver.ubloxGeneration = ublox
            receiver.losesWakingBytes = fault == .losesWakingBytes
            receiver.attachedByNativeUSB = nativeUSB
            return receiver
        }

        /// The driver's configuration for it.
        var configuration: ReceiverControlConfiguration {
            var configuration = ReceiverFaultMatrixTests.configuration
            configuration.model = model
            if nativeUSB { configuration.connection = .nativeUSB }
            return configuration
        }
    }

    /// How the receiver misbehaves, for every command it is sent.
    enum Fault: String, Sendable, CaseIterable, CustomTestStringConvertible {
        case none, refuses, dropsAnswers, garblesAnswers, ignores, answersLate, losesWakingBytes
        var testDescription: String { rawValue }

        var behavior: AcknowledgementBehavior {
            switch self {
            case .none, .losesWakingBytes: .normal
            case .refuses: .refuse
            case .dropsAnswers: .drop
            case .garblesAnswers: .garble
            case .ignores: .ignore
            case .answersLate: .late
            }
        }
    }

    /// One command of the engine, as the driver receives it.
    enum Command: Sendable, CustomStringConvertible {
        case start(PowerMode), setMode(PowerMode), stop(ReceiverPowerProfile.IdleState)

        var description: String {
            switch self {
            case .start(let mode): "start(\(mode))"
            case .setMode(let mode): "setMode(\(mode))"
            case .stop(let idle): "stop(into: \(idle))"
            }
        }
    }

    /// Every command: setup and identification, power save, the return to tracking, the sleep, the wake
    /// (identified again, set up again), a power save after the wake, and the deepest sleep.
    static let commands: [Command] = commands(powerSave: .medium)

    /// ``commands`` with the power save of `mode`.
    static func commands(powerSave mode: PowerMode) -> [Command] {
        [.start(.high), .setMode(mode), .setMode(.high), .stop(.standby), .start(.high), .setMode(mode), .stop(.off)]
    }

    /// The modes of the receiver's power-save settings: a fix every 5, 20 and 60 s.
    static let powerSaveModes: [PowerMode] = [.medium, .low, .lowest]

    /// The driver's default deadlines: how long one command may take to be confirmed, at most — the version
    /// query twice, three acknowledgements, a late answer, and the output of one longest power-save period with
    /// its slack (a sleep confirmed by silence; a setting shown by the output when its answer was lost, which
    /// on a fresh link must tell continuous tracking from the longest power save).
    static let configuration = ReceiverControlConfiguration(model: .autodetect)
    static var confirmationWindow: Duration {
        configuration.identificationTimeout * 2 + configuration.acknowledgementTimeout * 3 + .seconds(2)
            + (ReceiverControlConfiguration.powerSaveInterval(for: .lowest) ?? .zero) + OutputEvidence.slack * 2
    }

    /// The outcome of one generation under one fault: every command's mismatches, the commands left unknown,
    /// and those the receiver did not carry out.
    struct Outcome {
        var wrong: [String] = []
        var unknown: [String] = []
        var notCarriedOut: [String] = []

        /// The beliefs that differ from the receiver or stayed unknown — and, where every command should have
        /// been carried out (a receiver without faults), those that were not — prefixed with what was run.
        func failures(_ name: String, expectingEveryCommandCarriedOut: Bool) -> [String] {
            (wrong + unknown + (expectingEveryCommandCarriedOut ? notCarriedOut : [])).map { "\(name): \($0)" }
        }
    }

    static func run(_ generation: Generation, _ fault: Fault, powerSave mode: PowerMode = .medium) -> Outcome {
        run(VirtualReceiverLine(receiver: generation.receiver(fault), configuration: generation.configuration), commands(powerSave: mode))
    }

    /// Runs `commands` on `line`, each followed by its confirmation window.
    static func run(_ line: VirtualReceiverLine, _ commands: [Command]) -> Outcome {
        var line = line
        var outcome = Outcome()
        for command in commands {
            switch command {
            case .start(let mode): line.start(mode)
            case .setMode(let mode): line.setMode(mode)
            case .stop(let idle): line.stop(into: idle)
            }
            line.advance(by: confirmationWindow)
            let (believed, actual) = (line.believed, line.actual)
            if believed == .unknown {
                outcome.unknown.append("\(command): the receiver is \(actual)")
            } else if believed != actual {
                outcome.wrong.append("\(command): believed \(believed), the receiver is \(actual); the driver did \(line.trace.suffix(8))")
            }
            if let asked = line.asked, asked != actual {
                outcome.notCarriedOut.append("\(command): asked \(asked), the receiver is \(actual)")
            }
        }
        return outcome
    }

    @Test(arguments: Generation.everyAttachment, Fault.allCases)
    func theDriverBelievesWhatTheReceiverDoesOnceEachCommandsConfirmationWindowHasPassed(generation: Generation, fault: Fault) {
        var failures: [String] = []
        for mode in Self.powerSaveModes {
            failures += Self.run(generation, fault, powerSave: mode).failures("power save \(mode)", expectingEveryCommandCarriedOut: fault == .none)
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
}
