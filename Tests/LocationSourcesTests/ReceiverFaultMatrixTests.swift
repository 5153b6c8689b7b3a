import LocationEngine
@testable import LocationSources
import ReceiverControl
import SyntheticGPS
import Testing

/// Every command the driver sends, against every fault a receiver shows, for the MediaTek, the u-blox M8 and
/// the u-blox M10 personas, on virtual time with the driver's default deadlines: after each command, once its
/// confirmation window has passed, what the driver believes (and tells the engine) must be what the receiver
/// does (not "unknown", which the engine would cost as the dearest state: every fault leaves evidence within
/// the window).
///
/// The same matrix runs over a real pseudo-terminal, in real time, in ``ReceiverFaultMatrixOverAPtyTests``.
@Suite("Receiver fault matrix")
struct ReceiverFaultMatrixTests {
    /// A receiver generation the driver commands.
    struct Generation: Sendable, CustomTestStringConvertible {
        var name: String
        var persona: ReceiverPersona
        var model: ReceiverModel
        var ublox = UbloxGeneration.m8
        var testDescription: String { name }

        static let all = [
            Generation(name: "MediaTek", persona: .mediatek, model: .mediatek),
            Generation(name: "u-blox M8", persona: .ublox, model: .ublox),
            Generation(name: "u-blox M10", persona: .ublox, model: .ublox, ublox: .m10),
        ]

        func receiver(_ fault: Fault) -> CommandedReceiver {
            var receiver = CommandedReceiver(scenario: .stationary(seed: 3), persona: persona, acknowledgements: fault.behavior)
            receiver.ubloxGeneration = ublox
            receiver.losesWakingBytes = fault == .losesWakingBytes
            return receiver
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
    static let commands: [Command] = [.start(.high), .setMode(.medium), .setMode(.high), .stop(.standby), .start(.high), .setMode(.medium), .stop(.off)]

    /// The driver's default deadlines: how long one command may take to be confirmed, at most — the version
    /// query twice, three acknowledgements, a late answer, and the output of one longest power-save period with
    /// its slack (a sleep confirmed by silence; a setting shown by the output when its answer was lost, which
    /// on a fresh link must tell continuous tracking from the longest power save).
    static let configuration = ReceiverControlConfiguration(model: .autodetect)
    static var confirmationWindow: Duration {
        configuration.identificationTimeout * 2 + configuration.acknowledgementTimeout * 3 + .seconds(2)
            + (ReceiverControlConfiguration.powerSaveInterval(for: .lowest) ?? .zero) + OutputEvidence.slack * 2
    }

    /// The outcome of one generation under one fault: every command's mismatches, and the commands left unknown.
    struct Outcome {
        var wrong: [String] = []
        var unknown: [String] = []
    }

    static func run(_ generation: Generation, _ fault: Fault) -> Outcome {
        var configuration = Self.configuration
        configuration.model = generation.model
        var line = VirtualReceiverLine(receiver: generation.receiver(fault), configuration: configuration)
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
        }
        return outcome
    }

    @Test(arguments: Generation.all, Fault.allCases)
    func theDriverBelievesWhatTheReceiverDoesOnceEachCommandsConfirmationWindowHasPassed(generation: Generation, fault: Fault) {
        let outcome = Self.run(generation, fault)
        #expect(outcome.wrong.isEmpty, "\(outcome.wrong.joined(separator: "\n"))")
        #expect(outcome.unknown.isEmpty, "\(outcome.unknown.joined(separator: "\n"))")
    }
}
