import LocationEngine
@testable import LocationSources
import SyntheticGPS
import Testing

/// The fault matrix of ``ReceiverFaultMatrixTests`` with faults that hit one command and not the next — a
/// receiver that will not leave power save but takes its fix interval, that ignores the sleep it is sent, or
/// both — for every generation and attachment, with each power-save setting (5, 20 and 60 s): after each
/// command's confirmation window, what the driver believes is what the receiver does.
@Suite("Receiver fault matrix, one command at a time")
struct ReceiverFaultMatrixPerCommandTests {
    typealias Generation = ReceiverFaultMatrixTests.Generation

    /// Faults on some classes of command; the others are answered as they should be.
    struct CommandFault: Sendable, CustomTestStringConvertible {
        var behaviors: [ReceiverCommandClass: AcknowledgementBehavior]

        var testDescription: String {
            behaviors.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }

        /// The return to tracking refused, unanswered (obeyed or not), garbled or late — alone, and with the
        /// sleep ignored (a receiver that stays in power save silent between its fixes) — and the power save,
        /// the rate and the sleep failing alone.
        static let all: [CommandFault] =
            [AcknowledgementBehavior.refuse, .drop, .ignore, .garble, .late].flatMap { behavior in
                [CommandFault(behaviors: [.tracking: behavior]), CommandFault(behaviors: [.tracking: behavior, .sleep: .ignore])]
            }
            + [AcknowledgementBehavior.refuse, .drop, .ignore].flatMap { behavior in
                [CommandFault(behaviors: [.powerSave: behavior]), CommandFault(behaviors: [.rate: behavior])]
            }
            + [CommandFault(behaviors: [.sleep: .ignore]), CommandFault(behaviors: [.sleep: .refuse])]
    }

    @Test(arguments: Generation.everyAttachment, CommandFault.all)
    func theDriverBelievesWhatTheReceiverDoesWhenOneCommandFails(generation: Generation, fault: CommandFault) {
        var failures: [String] = []
        for mode in ReceiverFaultMatrixTests.powerSaveModes {
            var receiver = generation.receiver(.none)
            receiver.commandBehaviors = fault.behaviors
            let line = VirtualReceiverLine(receiver: receiver, configuration: generation.configuration)
            let outcome = ReceiverFaultMatrixTests.run(line, ReceiverFaultMatrixTests.commands(powerSave: mode))
            failures += outcome.failures("power save \(mode)", expectingEveryCommandCarriedOut: false)
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// The stop after a failed return to tracking from the 20 s power save, the receiver ignoring the sleep:
    /// still cycling, it is not believed asleep (a silence window of one tracking interval would have said so).
    @Test(arguments: [Generation.everyAttachment[0], Generation.everyAttachment[1]], [AcknowledgementBehavior.refuse, .drop, .ignore])
    func aReceiverStillCyclingAfterAFailedReturnToTrackingIsNotBelievedAsleep(generation: Generation, behavior: AcknowledgementBehavior) {
        var receiver = generation.receiver(.none)
        receiver.commandBehaviors = [.tracking: behavior, .sleep: .ignore]
        var line = VirtualReceiverLine(receiver: receiver, configuration: generation.configuration)
        line.start(.high)
        line.advance(by: .seconds(10))
        line.setMode(.low)
        line.advance(by: .seconds(10))
        #expect(line.believed == .powerSave(.seconds(20)))
        line.setMode(.high)
        line.advance(by: ReceiverFaultMatrixTests.confirmationWindow)
        line.stop(into: .standby)
        line.advance(by: ReceiverFaultMatrixTests.confirmationWindow)
        #expect(line.actual != .standby && line.actual != .off)
        #expect(line.believed == line.actual, "the driver did \(line.trace.suffix(8))")
    }

    /// A sleep whose bytes cannot be written (the link closed under them): the receiver tracks on and is not
    /// believed asleep; once the link is back it is sent to sleep.
    @Test(arguments: Generation.everyAttachment)
    func aSleepWhoseWriteFailsIsSentAgainWhenTheLinkIsBack(generation: Generation) {
        var line = VirtualReceiverLine(receiver: generation.receiver(.none), configuration: generation.configuration)
        line.start(.high)
        line.advance(by: ReceiverFaultMatrixTests.confirmationWindow)
        line.writesFail = true
        line.stop(into: .off)
        line.dropLink()
        line.advance(by: ReceiverFaultMatrixTests.confirmationWindow)
        #expect(line.actual == .tracking(.seconds(1)))
        #expect(line.believed == .unknown, "costed as tracking until the sleep is confirmed")
        line.writesFail = false
        line.reopenLink()
        line.advance(by: ReceiverFaultMatrixTests.confirmationWindow)
        #expect(line.actual == line.asked)
        #expect(line.believed == line.actual, "the driver did \(line.trace.suffix(8))")
    }
}
