import LocationEngine
import Logging
import NIOCore
import NMEA
import ReceiverControl

/// The shell around a commanded receiver's ``ReceiverDriverStateMachine``: it feeds the machine under the
/// session's lock, enqueues the link operations and deadlines it asks for on the link's event loop while
/// still holding the lock (so that they run in the order they were decided, whichever thread decided them),
/// and logs and counts the outcomes after leaving it.
extension NMEAStreamSession {
    typealias DriverAction = ReceiverDriverStateMachine.Action

    /// Gives the driver the link it commands (once, right after both are made).
    func attach(_ link: ReconnectingLink) {
        state.withLockedValue { $0.receiver?.link = link }
    }

    /// The engine started the source.
    func receiverStart(_ mode: PowerMode) { drive { $0.start(mode: mode, now: $1) } }
    /// The engine changed the mode.
    func receiverSetMode(_ mode: PowerMode) { drive { $0.setMode(mode, now: $1) } }
    /// The engine stopped the source into `idle`.
    func receiverStop(into idle: ReceiverPowerProfile.IdleState) { drive { $0.stop(into: idle, now: $1) } }
    /// The port opened: what the old connection left half-read is dropped.
    func receiverLinkOpened() {
        state.withLockedValue {
            $0.receiver?.splitter.streamCut()
            // A new connection's latency is its own (and the receiver may have been reset meanwhile).
            $0.receiver?.dating = OutputDating()
        }
        drive { $0.linkOpened(now: $1) }
    }
    /// The port closed.
    func receiverLinkClosed() {
        state.withLockedValue { $0.receiver?.splitter.streamCut() }
        drive { $0.linkClosed(now: $1) }
    }
    /// A command's bytes could not be written.
    func receiverWriteFailed() { drive { $0.writeFailed(now: $1) } }
    /// The link gave up reopening.
    func receiverLinkGaveUp() { drive { $0.linkGaveUp(now: $1) } }

    /// Splits a chunk from a commanded receiver: its replies go to the driver, NMEA to the decoder.
    func receiveMixed(_ buffer: ByteBuffer) -> LinkInputOutcome {
        var understood = false
        var reports: [DriverAction] = []
        var confirmed: ([SourceEvent], SourceEventSink)?
        let delivery = decode { state, now, onEpoch in
            // Taken out of the state while it is worked on, so that its buffers are not copied.
            guard var receiver = state.receiver else { return }
            state.receiver = nil
            let before = DriverBelief(receiver.driver)
            defer {
                confirmed = state.receiverStateSink.map { (Self.confirmations(from: before, to: DriverBelief(receiver.driver), now: now), $0) }
            }
            var pieces: [ReceiverStreamSplitter.Piece] = []
            receiver.splitter.feed(buffer.readableBytesView) { pieces.append($0) }
            let sentencesBefore = state.decoder.sentencesDecoded
            for piece in pieces {
                if case .line(let line) = piece, !line.starts(with: Self.pmtkPrefix) {
                    line.withUnsafeBytes { state.decoder.feed($0, onEpoch: onEpoch) }
                }
                guard let input = Self.driverInput(piece) else { continue }
                switch input {
                // A reply, or a UBX frame, whose checksum held (a text line counts once it decodes, below).
                case .ubx, .pmtk, .output(fromUBX: true): understood = true
                case .output(fromUBX: false), .garbled: break
                }
                let sentAt = Self.sentAt(input, of: piece, readAt: now, dating: &receiver.dating)
                reports += apply(receiver.driver.received(input, now: sentAt), to: &receiver)
            }
            if state.decoder.sentencesDecoded != sentencesBefore { understood = true }
            state.receiver = receiver
        }
        report(reports)
        if let (events, sink) = confirmed { for event in events { sink.send(event) } }
        return LinkInputOutcome(understood: understood, delivered: delivery)
    }

    /// What the driver believes of its receiver, as far as the engine hears it.
    struct DriverBelief: Sendable, Equatable {
        var state: ReceiverPowerState
        var sleepConfirmed: Bool
        var mode: PowerMode?
        var since: Duration
        /// How many mode commands the receiver refused, staying in the setting of ``mode``.
        var settingKept = 0

        init(state: ReceiverPowerState, sleepConfirmed: Bool, mode: PowerMode? = nil, since: Duration = .zero, settingKept: Int = 0) {
            self.state = state
            self.sleepConfirmed = sleepConfirmed
            self.mode = mode
            self.since = since
            self.settingKept = settingKept
        }

        init(_ driver: ReceiverDriverStateMachine) {
            self.init(
                state: driver.state, sleepConfirmed: driver.sleepConfirmed, mode: driver.confirmedMode, since: driver.confirmedSince,
                settingKept: driver.settingKept)
        }
    }

    /// Where a driver in `state` confirmed its receiver went to idle: standby, off (backup), or `on` for
    /// tracking and anything it cannot tell.
    static func idleState(_ state: ReceiverPowerState, sleepConfirmed: Bool) -> ReceiverPowerProfile.IdleState {
        switch state {
        case .standby: .standby
        case .backup: .off
        case .powerSave where sleepConfirmed: .standby
        case .unknown, .tracking, .powerSave, .released: .on
        }
    }

    /// What the engine hears when the driver's belief changed: the setting the running receiver confirmed
    /// (`receiverTracking`; again when it refused a mode command and kept that setting), and where the receiver confirmed it is — standby, off for a u-blox's backup, standby
    /// for a u-blox sent to wait in power save over its own USB port — and "on" for anything else (tracking,
    /// power save while running, a port closed with the receiver left as it was, not known): the engine costs
    /// a state not confirmed as the dearest it could be. Each with how long the evidence says it has held.
    static func confirmations(from before: DriverBelief, to after: DriverBelief, now: Duration) -> [SourceEvent] {
        var events: [SourceEvent] = []
        let age = max(.zero, now - after.since)
        if let mode = after.mode, after.mode != before.mode || after.settingKept != before.settingKept {
            events.append(.receiverTracking(mode, age: age))
        }
        if after.state != before.state || after.sleepConfirmed != before.sleepConfirmed {
            let idle = idleState(after.state, sleepConfirmed: after.sleepConfirmed)
            events.append(.receiverState(idle, age: idle == .on ? .zero : age))
        }
        return events
    }

    /// What a piece of a commanded receiver's stream tells its driver: a reply, that it is outputting, or
    /// garbage (`nil`: a PMTK sentence that answers nothing the driver asks).
    static func driverInput(_ piece: ReceiverStreamSplitter.Piece) -> ReceiverDriverStateMachine.Input? {
        switch piece {
        case .line(let line) where line.starts(with: pmtkPrefix):
            guard let packet = try? PMTKPacket.parse(line) else { return .garbled }
            return (try? PMTKReply(packet)).map { .pmtk($0) }
        case .line: return .output(fromUBX: false)
        case .ubx(let frame): return (try? UBXReply(frame)).map { .ubx($0) } ?? .output(fromUBX: true)
        case .garbledFrame: return .garbled
        }
    }

    /// When the receiver sent `piece`, read at `readAt` as `input`: its output (and garbage, which is output too)
    /// as its own clock dates it, a reply when it was read — a reply read late is an acknowledgement that came late.
    static func sentAt(
        _ input: ReceiverDriverStateMachine.Input, of piece: ReceiverStreamSplitter.Piece, readAt: Duration, dating: inout OutputDating
    ) -> Duration {
        switch input {
        case .pmtk, .ubx: return readAt
        case .output, .garbled:
            guard case .line(let line) = piece else { return dating.date(readAt: readAt, stamp: nil) }
            return dating.date(readAt: readAt, stamp: OutputDating.stamp(of: line))
        }
    }

    private static let pmtkPrefix = Array("$PMTK".utf8)

    private func drive(_ event: (inout ReceiverDriverStateMachine, Duration) -> [DriverAction]) {
        let now = Duration.nanoseconds(Int64(clamping: NIODeadline.now().uptimeNanoseconds))
        let (reports, confirmed) = state.withLockedValue { state -> ([DriverAction], ([SourceEvent], SourceEventSink)?) in
            guard var receiver = state.receiver else { return ([], nil) }
            state.receiver = nil
            defer { state.receiver = receiver }
            let before = DriverBelief(receiver.driver)
            let reports = apply(event(&receiver.driver, now), to: &receiver)
            return (reports, state.receiverStateSink.map { (Self.confirmations(from: before, to: DriverBelief(receiver.driver), now: now), $0) })
        }
        report(reports)
        if let (events, sink) = confirmed { for event in events { sink.send(event) } }
    }

    /// Under the lock: enqueues link operations and deadlines in decision order and updates the statistics.
    /// Returns the actions to log and count once the lock is released.
    private func apply(_ actions: [DriverAction], to receiver: inout ReceiverState) -> [DriverAction] {
        var reports: [DriverAction] = []
        for action in actions {
            switch action {
            case .write(let bytes):
                receiver.statistics.commandsSent += 1
                if let link = receiver.link {
                    eventLoop.execute { [weak self] in
                        let sent = link.send(ByteBuffer(bytes: bytes)) { [weak self] _ in self?.receiverWriteFailed() }
                        if !sent { self?.receiverWriteFailed() }
                    }
                }
            case .armDeadline(let token, let delay):
                eventLoop.scheduleTask(in: delay.timeAmount) { [weak self] in
                    self?.drive { $0.deadline(token, now: $1) }
                }
            case .openLink:
                if let link = receiver.link { eventLoop.execute { link.start() } }
            case .closeLink:
                if let link = receiver.link { eventLoop.execute { link.stop() } }
                reports.append(action)
            case .resolved(_, let outcome, _):
                switch outcome {
                case .acknowledged, .confirmedBySilence: receiver.statistics.commandsConfirmed += 1
                case .acknowledgedLate: receiver.statistics.commandsAcknowledgedLate += 1
                case .refused: receiver.statistics.commandsRefused += 1
                case .unanswered: receiver.statistics.commandsUnanswered += 1
                case .garbled: receiver.statistics.commandsGarbled += 1
                case .linkLost: receiver.statistics.commandsLostWithLink += 1
                case .superseded: receiver.statistics.commandsSuperseded += 1
                }
                reports.append(action)
            case .identified(let vendor):
                receiver.statistics.vendor = vendor
                reports.append(action)
            case .error(let error):
                receiver.statistics.lastError = error
                reports.append(action)
            }
        }
        receiver.statistics.state = receiver.driver.state
        receiver.statistics.confirmedMode = receiver.driver.confirmedMode
        receiver.statistics.sleepConfirmed = receiver.driver.sleepConfirmed
        receiver.statistics.commandsWaiting = receiver.driver.commandsWaiting
        return reports
    }

    /// Logs and counts what the driver reported: one line and one metric per command that failed.
    private func report(_ actions: [DriverAction]) {
        for action in actions {
            switch action {
            case .resolved(let kind, let outcome, let fallback):
                metrics.receiverCommand(kind, outcome)
                guard let fallback else {
                    let what = outcome == .superseded ? "receiver command given up on: the source started again" : "receiver command confirmed"
                    logger.debug("\(what)", metadata: ["command": "\(kind.rawValue)", "result": "\(outcome.rawValue)"])
                    continue
                }
                metrics.receiverFallback(fallback)
                logger.notice(
                    "receiver command failed; fallback taken",
                    metadata: ["command": "\(kind.rawValue)", "result": "\(outcome.rawValue)", "fallback": "\(fallback.rawValue)"])
            case .identified(let vendor?):
                logger.info("receiver identified", metadata: ["receiver": "\(vendor)"])
            case .identified(nil):
                logger.notice("the receiver answered no version query: treated as plain (it stays powered when stopped)")
            case .error(let error):
                logger.error("receiver configuration", metadata: ["error": "\(error)"])
            case .closeLink:
                logger.debug("receiver settled; closing the port")
            case .write, .armDeadline, .openLink:
                break
            }
        }
    }
}
