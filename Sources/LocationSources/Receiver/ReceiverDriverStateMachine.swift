import LocationEngine
import ReceiverControl

/// A receiver driver as a pure state machine: no I/O, no clock (`now` is an argument, any monotonic time), no
/// locks. Events in (the engine's start/mode/stop, the link opening and closing, the receiver's replies, a
/// deadline firing); actions out (write bytes, arm a deadline, open or close the link, report).
///
/// One command is in flight at a time, and each waits for its confirmation until a deadline; a refusal, silence or
/// garbage takes the documented fallback, once, and the command is not sent again on that link (unless its
/// acknowledgement comes late: then it took effect, and the driver's state follows it):
///
/// | command | confirmed by | on failure |
/// |---|---|---|
/// | identify (version query) | `$PMTK705` / `UBX-MON-VER` (one repeat: the first bytes may only wake it) | plain: the port is closed on stop |
/// | tracking, rate, power save | `$PMTK001,…,3` / `UBX-ACK-ACK` (the mode command's) | the receiver keeps its previous setting and the driver its last confirmed state; a failed return to tracking is sent again at the next plan |
/// | standby (MediaTek) | `$PMTK001,161,3`, or output stopping | the port is closed; the receiver stays powered |
/// | backup (u-blox RXM-PMREQ) | output stopping (it is not acknowledged) | the port is closed; the receiver stays powered |
/// | (a sleep lost with the link) | — | sent again once the link is back; the receiver's state is not known until then |
///
/// Output is dated when the receiver sent it (``OutputDating``, by the owner: `now` of ``received(_:now:)``), so
/// that a reader held up does not read old output as new. "Output stopping" means nothing arrived later than 0.5 s after the command (what was already on the line) until a
/// deadline of the receiver's output interval plus 1 s: a receiver still running must have sent a fix by then. The
/// interval is the longest the receiver may be in: its last confirmed setting's (kept when a later mode command
/// fails: refused, the receiver is still in it), and after a mode command whose answer was lost, that command's.
///
/// A start that arrives while the standby command is in flight wins: the link stays open, and once the command
/// resolves the receiver is woken and set up again; a sleep that only the output stopping confirms (u-blox backup)
/// is not waited for (``Outcome/superseded``).
struct ReceiverDriverStateMachine: Sendable {
    /// What the owner must do.
    enum Action: Sendable, Equatable {
        /// Write these bytes to the receiver.
        case write([UInt8])
        /// Call ``deadline(_:now:)`` with `token` after `delay`.
        case armDeadline(token: UInt64, delay: Duration)
        /// Start the link (open the port, with reconnection).
        case openLink
        /// Stop the link (close the port for good).
        case closeLink
        /// A command was confirmed or failed; on failure, `fallback` says what was done instead.
        case resolved(ReceiverCommand.Kind, Outcome, fallback: Fallback?)
        /// The receiver was identified (`nil`: it answered nothing and is treated as plain).
        case identified(ReceiverVendor?)
        /// The receiver does not behave as configured.
        case error(ReceiverControlError)
    }

    /// How a command ended (the `result` dimension of the metrics).
    enum Outcome: String, Sendable, Hashable, CaseIterable {
        case acknowledged
        case confirmedBySilence = "confirmed_by_silence"
        case refused, unanswered, garbled
        case linkLost = "link_lost"
        /// The acknowledgement of a command counted unanswered came after all: the command took effect.
        case acknowledgedLate = "acknowledged_late"
        /// A sleep confirmed only by the output stopping was given up on before its deadline: the engine started
        /// the source again, and the receiver is woken whether it had gone to sleep or not.
        case superseded

        var isSuccess: Bool { self == .acknowledged || self == .confirmedBySilence }
    }

    /// What was done instead of a failed command.
    enum Fallback: String, Sendable, Hashable {
        /// The port is closed and the receiver stays powered (what a plain receiver gets).
        case closePort = "close_port"
        /// The receiver keeps its previous setting.
        case keepSetting = "keep_setting"
        /// No commands are sent to this receiver on this link.
        case plain
        /// A sleep lost with the link (not written, or the link closed before it was confirmed): the link stays
        /// requested, and once it is back the receiver is identified and sent to sleep again.
        case sleepOnReconnect = "sleep_on_reconnect"
    }

    /// What the receiver said, or that it said something.
    enum Input: Sendable, Hashable {
        case pmtk(PMTKReply)
        case ubx(UBXReply)
        /// An NMEA sentence or a UBX frame that answers nothing: the receiver is outputting.
        case output(fromUBX: Bool)
        /// A reply whose checksum failed.
        case garbled
    }

    /// What the engine last asked for: the one place this driver keeps whether the receiver should be down.
    private enum Goal: Sendable, Hashable {
        case off
        case running(PowerMode)
        /// Down, in the idle state the engine chose (``stop(into:now:)``).
        case asleep(ReceiverPowerProfile.IdleState)

        var isAsleep: Bool {
            if case .asleep = self { return true }
            return false
        }
    }

    private struct InFlight: Sendable {
        var command: ReceiverCommand
        var token: UInt64
        var sentAt: Duration
        var garbled = false
        var attempt = 1
        /// During identification: a UBX frame other than the version was seen.
        var sawUBX = false
    }

    private let model: ReceiverModel
    private let configuration: ReceiverControlConfiguration
    private let connection: ReceiverConnection
    private var goal = Goal.off
    private var linkRequested = false
    private var linkOpen = false
    /// The dialect of the identified receiver; `nil` while unknown or when plain.
    private(set) var dialect: ReceiverDialect?
    private var identified = false
    private var applied: ReceiverProfile?
    private var queue: [ReceiverCommand] = []
    private var inFlight: InFlight?
    private var nextToken: UInt64 = 0
    private var lastOutput: Duration?
    private var refused: Set<ReceiverCommand.Kind> = []
    /// The longest output interval the receiver may be in without having confirmed it: a mode command
    /// whose answer was lost may have taken effect. Silence is judged against it until a mode is confirmed.
    private var unconfirmedInterval: Duration?
    /// The setting the receiver last confirmed on this link (by an acknowledgement, or by its output), kept when a
    /// later mode command fails: the receiver may still be in it. `nil` while none is.
    private var confirmedSetting: ReceiverProfile?
    /// What the receiver is doing, as far as the driver knows.
    private(set) var state = ReceiverPowerState.unknown
    /// Whether the receiver confirmed the sleep the engine sent it to (its last sleep step confirmed: standby,
    /// backup, or over native USB the power save it waits in), until it is started again.
    private(set) var sleepConfirmed = false
    /// Commands queued or in flight: until none is, what the driver believes may still change by what it sent.
    var commandsWaiting: Int { queue.count + (inFlight == nil ? 0 : 1) }
    /// The last command whose acknowledgement did not come in time: an acknowledgement that comes later still
    /// says the command took effect (a receiver answering late), and the driver's state follows it.
    private var unansweredLast: (command: ReceiverCommand, sentAt: Duration)?
    /// The engine's mode whose setting the running receiver confirmed on this link (`nil`: none yet, or not
    /// known since a mode command whose answer was lost).
    private(set) var confirmedMode: PowerMode?
    /// After a mode command whose answer was lost, or one refused while no setting was confirmed on the link:
    /// the output will tell which setting the receiver is in (and the mode confirmed before the command).
    private var evidence: (output: OutputEvidence, command: ReceiverCommand, previousMode: PowerMode?)?
    /// Since when the evidence says the receiver is in its last confirmed state or setting: for an
    /// acknowledgement, in time or late, and a sleep confirmed by silence, the command's sending (the receiver
    /// applied it then, or has been silent since).
    private(set) var confirmedSince = Duration.zero
    /// How many times the running receiver stayed in the setting it confirmed when asked for another (a mode
    /// command refused, or a setting refused earlier on the link and not asked again): each confirms that
    /// setting again (its mode unchanged), which the engine hears too.
    private(set) var settingKept = 0

    /// A driver for `configuration.model` (not ``ReceiverModel/plain``, which needs no driver), attached as
    /// `configuration.connection` says (a UART when it says nothing).
    init(configuration: ReceiverControlConfiguration) {
        self.model = configuration.model
        self.configuration = configuration
        self.connection = configuration.connection ?? .uart
    }

    /// The engine started the source in `mode`.
    mutating func start(mode: PowerMode, now: Duration) -> [Action] {
        let wasAsleep = goal.isAsleep
        goal = .running(mode)
        sleepConfirmed = false
        if wasAsleep { confirmedMode = nil }
        guard linkRequested else {
            linkRequested = true
            return [.openLink]
        }
        // Wake wins: the standby command in flight resolves first, then the receiver is woken and set up again.
        if wasAsleep, linkOpen {
            queue = [ReceiverDialect.identify(model)]
            identified = false
            applied = nil
            // A sleep that only the output stopping confirms (u-blox backup) would hold the wake for as long as
            // the receiver's output interval (a minute in on/off power save): it is given up on at once. Whether
            // the receiver went to sleep or not, the version query wakes it; it is sent once more than usual
            // (from attempt 0), as the receiver may still have been entering backup when the first one came
            // (lost, waking nothing).
            if let current = inFlight, current.command.isSleep, current.command.expectation == .silence {
                inFlight = nil
                evidence = nil
                return [.resolved(current.command.kind, .superseded, fallback: nil)] + send(queue.removeFirst(), attempt: 0, now: now)
            }
        }
        return advance(now: now)
    }

    /// The engine changed the mode of a running source.
    mutating func setMode(_ mode: PowerMode, now: Duration) -> [Action] {
        guard case .running = goal else { return [] }
        goal = .running(mode)
        guard linkOpen, identified else { return advance(now: now) }
        if profile(for: mode) == applied, !queue.isEmpty || inFlight?.command.mode != nil {
            // The setting still being sent serves this mode too (best and high, say): its commands go on, for this
            // mode. Dropping the ones not yet sent would leave it half applied (a fix rate never set), as the plan
            // of an unchanged setting sends nothing.
            for index in queue.indices where queue[index].mode != nil { queue[index].mode = mode }
            if inFlight?.command.mode != nil { inFlight?.command.mode = mode }
            return advance(now: now)
        }
        queue.removeAll { $0.kind != .identify }
        queue += plan(for: mode, now: now)
        return advance(now: now)
    }

    /// The engine stopped the source: put the receiver to sleep (its deepest state), then close the port.
    mutating func stop(now: Duration) -> [Action] { stop(into: .off, now: now) }

    /// The engine stopped the source into `idle`: put the receiver in that state (``ReceiverDialect/sleep(into:over:)``),
    /// then close the port; for ``ReceiverPowerProfile/IdleState/on``, close the port and leave it tracking. Again
    /// while the receiver is down, it changes nothing: each dialect's one sleep state serves standby and off.
    mutating func stop(into idle: ReceiverPowerProfile.IdleState, now: Duration) -> [Action] {
        if case .asleep(let current) = goal {
            // Down already. Between standby and off nothing changes; a receiver left tracking (`on`) is woken
            // again: the port reopens, and once identified it is sent to sleep and the port closes.
            guard current == .on, idle != .on, state == .released else { return [] }
            goal = .asleep(idle)
            linkRequested = true
            return [.openLink]
        }
        goal = .asleep(idle)
        guard linkRequested else { return [] }
        // Being identified, the receiver is awake (the query woke it): it is put to sleep once it has
        // answered (or is released as plain if it never does), not left tracking behind a closed port.
        if linkOpen, !identified, inFlight?.command.expectation == .identity { return [] }
        // Started again while a command was in flight (a stop's sleep, a mode), and stopped before the wake's
        // identification went out: the receiver is still the one this link identified. It is put to sleep as if
        // the start had not come, not released tracking behind a closed port.
        if linkOpen, !identified, dialect != nil, inFlight != nil, queue.first?.kind == .identify { identified = true }
        // The link is down: it stays requested, and once it is back the receiver is identified and sent to sleep.
        guard linkOpen else { return idle == .on ? release() : [] }
        guard identified, let sleep = dialect?.sleep(into: idle, over: connection), !sleep.isEmpty else { return release() }
        queue = sleep.contains { refused.contains($0.kind) } ? [] : sleep
        // The sleep in flight is not sent twice: its answer closes the port.
        if let current = inFlight, current.command.isSleep, queue.first?.kind == current.command.kind { queue.removeFirst() }
        guard inFlight != nil || !queue.isEmpty else { return release() }
        return advance(now: now)
    }

    /// The port opened.
    mutating func linkOpened(now: Duration) -> [Action] {
        guard linkRequested else { return [] }
        linkOpen = true
        identified = false
        applied = nil
        refused = []
        // The receiver keeps its setting across a reopened port (a dropped connection, not a power cycle): until
        // this link confirms one, silence is judged over the longest it may still output at.
        let kept = [unconfirmedInterval, confirmedSetting?.outputInterval].compactMap { $0 }.max()
        unconfirmedInterval = kept.map { max($0, configuration.fixInterval) }
        confirmedSetting = nil
        inFlight = nil
        state = .unknown
        unansweredLast = nil
        confirmedMode = nil
        evidence = nil
        queue = [ReceiverDialect.identify(model)]
        return advance(now: now)
    }

    /// The port closed (the receiver was unplugged, the connection dropped). The link reopens it unless stopped.
    mutating func linkClosed(now: Duration) -> [Action] {
        guard linkOpen else { return [] }
        linkOpen = false
        queue = []
        state = .unknown
        evidence = nil
        var actions: [Action] = []
        if let current = inFlight {
            inFlight = nil
            actions += finish(current, .linkLost, now: now, advancing: false)
        }
        // The link stays requested and reopens: the receiver is identified, then set up for the mode, or owed
        // its sleep, sent to sleep (stopped into `on`, the port was closed at once).
        return actions
    }

    /// The link gave up reopening: it is stopped, and the receiver released (left as it is; owed its sleep, it
    /// is not known asleep). While running, the engine hears the source's failure and stops it; the next start
    /// opens the link again.
    mutating func linkGaveUp(now: Duration) -> [Action] {
        guard linkRequested, !linkOpen else { return [] }
        return release()
    }

    /// The bytes of the command in flight could not be written: the link closed under them, or was down.
    /// The command is lost with the link (reported and counted, not left to time out); the link's closing
    /// and reopening, which follow, take it from there.
    mutating func writeFailed(now: Duration) -> [Action] {
        guard let current = inFlight else { return [] }
        inFlight = nil
        return finish(current, .linkLost, now: now, advancing: false)
    }

    /// The receiver sent something.
    mutating func received(_ input: Input, now: Duration) -> [Action] {
        switch input {
        case .output(let fromUBX):
            lastOutput = now
            if fromUBX, let current = inFlight, current.command.expectation == .identity { return identify(.ublox, vendor: nil, now: now) }
            if evidence != nil, let (interval, since) = evidence!.output.output(at: now), let pending = evidence {
                evidence = nil
                shownByOutput(interval, after: pending.command, previousMode: pending.previousMode, since: since)
            }
            return []
        case .garbled:
            // Garbage is output too: a receiver that sends it has not fallen silent.
            lastOutput = now
            inFlight?.garbled = true
            return []
        case .pmtk(let reply):
            if let current = inFlight, current.command.expectation == .identity {
                if case .release(let release) = reply { return identify(.mediatek, vendor: .mediatek(release: release.release), now: now) }
                return identify(.mediatek, vendor: .mediatek(release: ""), now: now)
            }
            if case .systemMessage(1) = reply, identified, dialect != nil { return restartedOnItsOwn(now: now) }
            guard case .acknowledgement(let type, let flag) = reply else { return [] }
            switch inFlight?.command.expectation {
            case .pmtkAcknowledgement(type)?, .pmtkAcknowledgementOrSilence(type)?:
                let current = inFlight!
                inFlight = nil
                if answersUnansweredLastToo(current) { return finish(current, .unanswered, ambiguous: true, now: now) }
                return finish(current, flag == .succeeded ? .acknowledged : .refused, now: now)
            default:
                guard flag == .succeeded else { return [] }
                return acknowledgedLate(now: now) { $0 == .pmtkAcknowledgement(type) || $0 == .pmtkAcknowledgementOrSilence(type) }
            }
        case .ubx(let reply):
            guard let current = inFlight else {
                guard case .acknowledged(let messageClass, let messageID) = reply else { return [] }
                return acknowledgedLate(now: now) { $0 == .ubxAcknowledgement(messageClass, messageID) }
            }
            if current.command.expectation == .identity {
                if case .version(let version) = reply {
                    return identify(
                        .ublox, vendor: .ublox(software: version.software, protocolVersion: version.inferredProtocolVersion),
                        keys: version.usesConfigurationKeys, now: now)
                }
                return identify(.ublox, vendor: nil, now: now)
            }
            switch (reply, current.command.expectation) {
            case (.acknowledged(let messageClass, let messageID), .ubxAcknowledgement(let expectedClass, let expectedID))
            where messageClass == expectedClass && messageID == expectedID:
                inFlight = nil
                if answersUnansweredLastToo(current) { return finish(current, .unanswered, ambiguous: true, now: now) }
                return finish(current, .acknowledged, now: now)
            case (.notAcknowledged(let messageClass, let messageID), .ubxAcknowledgement(let expectedClass, let expectedID))
            where messageClass == expectedClass && messageID == expectedID:
                inFlight = nil
                if answersUnansweredLastToo(current) { return finish(current, .unanswered, ambiguous: true, now: now) }
                return finish(current, .refused, now: now)
            case (.acknowledged(let messageClass, let messageID), _):
                return acknowledgedLate(now: now) { $0 == .ubxAcknowledgement(messageClass, messageID) }
            default: return []
            }
        }
    }

    /// Whether an answer to `current` would answer the last command counted unanswered too (MediaTek's tracking
    /// and power save are both `PMTK225`; u-blox M8's both CFG-RXM; every u-blox 9 or 10 setting a VALSET): a late
    /// answer to that one cannot be told from this one's. Then neither is believed: the old one is forgotten and
    /// `current` counts as unanswered, so that its own answer, if one follows, comes late and confirms it, and
    /// until then the output tells which setting the receiver is in.
    private mutating func answersUnansweredLastToo(_ current: InFlight) -> Bool {
        guard let (late, _) = unansweredLast, let answer = Self.acknowledgement(answering: late.expectation),
            answer == Self.acknowledgement(answering: current.command.expectation)
        else { return false }
        unansweredLast = nil
        return true
    }

    /// The acknowledgement that answers a command expecting `expectation`, if one does (a standby that may also
    /// be confirmed by silence is answered by the same `PMTK001` as any other of its type).
    private static func acknowledgement(answering expectation: ReceiverCommand.Expectation) -> ReceiverCommand.Expectation? {
        switch expectation {
        case .pmtkAcknowledgement(let type), .pmtkAcknowledgementOrSilence(let type): .pmtkAcknowledgement(type)
        case .ubxAcknowledgement: expectation
        case .identity, .silence: nil
        }
    }

    /// An acknowledgement no command in flight expects: if it answers the last command counted unanswered,
    /// that command took effect after all — the driver's state follows it, and the command may be sent again.
    private mutating func acknowledgedLate(now: Duration, _ answers: (ReceiverCommand.Expectation) -> Bool) -> [Action] {
        guard let (late, sentAt) = unansweredLast, answers(late.expectation) else { return [] }
        unansweredLast = nil
        evidence = nil
        refused.remove(late.kind)
        // The silence deadline stays as long as the mode may make the output (the profile it carried was
        // forgotten when the command failed).
        if let resulting = late.resultingState {
            state = resulting
            if let setting = late.profile { confirmedSetting = setting }
            // What comes late is the answer: the receiver applied the command when it was received.
            confirmedSince = sentAt
            if let mode = late.mode, case .running = goal { confirmedMode = mode }
        }
        var actions: [Action] = [.resolved(late.kind, .acknowledgedLate, fallback: nil)]
        if late.resultingState == nil, case .running(let mode) = goal, late.mode == mode, queue.isEmpty, inFlight == nil {
            // A step of a setting (u-blox's CFG-PM2 ahead of the CFG-RXM that enables it) was taken after all: the
            // rest of the setting, dropped when the step counted as refused, is sent now — the steps after this
            // one only: sending it again would be answered late again, and again, for as long as the receiver
            // answers later than the timeout.
            applied = nil
            var rest = plan(for: mode, now: now)
            if let step = rest.firstIndex(of: late) { rest.removeFirst(step + 1) }
            queue = rest
            actions += advance(now: now)
        }
        return actions
    }

    /// The output showed the interval the receiver outputs at, after `command` whose answer was lost (or which
    /// was refused with no setting confirmed): the driver's state follows — the command's setting, or the one the
    /// receiver was confirmed in before, or with none known before, the setting that outputs at that interval
    /// (continuous tracking, as the dearest mode, at the fix interval).
    private mutating func shownByOutput(_ interval: Duration, after command: ReceiverCommand, previousMode: PowerMode?, since: Duration) {
        let shown = ReceiverProfile(outputInterval: interval, fixInterval: configuration.fixInterval)
        believe(shown, mode: command.profile == shown ? command.mode : previousMode)
        // Outputting at the command's interval, the receiver is in its setting (taken, or already in it).
        if command.profile == shown {
            applied = shown
            if unansweredLast?.command == command { unansweredLast = nil }
        }
        unconfirmedInterval = nil
        confirmedSince = since
    }

    /// The receiver is in `setting`, by evidence other than a command's acknowledgement: the driver's state,
    /// and while running the engine's mode it serves (`mode` when given, else the one confirmed before or the one
    /// asked if `setting` serves it, else the dearest it serves).
    private mutating func believe(_ setting: ReceiverProfile, mode: PowerMode? = nil) {
        confirmedSetting = setting
        state = setting.state
        guard case .running(let asked) = goal else { return }
        confirmedMode = ([mode, confirmedMode, asked].compactMap { $0 } + PowerMode.allCases.reversed()).first { profile(for: $0) == setting }
    }

    /// The deadline armed with `token` fired.
    mutating func deadline(_ token: UInt64, now: Duration) -> [Action] {
        guard let current = inFlight, current.token == token else { return [] }
        inFlight = nil
        switch current.command.expectation {
        case .identity:
            guard current.attempt >= 2 else {
                let actions = send(current.command, attempt: current.attempt + 1, now: now)
                inFlight?.sawUBX = current.sawUBX
                return actions
            }
            if current.sawUBX {
                inFlight = current
                return identify(.ublox, vendor: nil, settling: true, now: now)
            }
            return identificationFailed(now: now)
        case .silence, .pmtkAcknowledgementOrSilence:
            // Silent: nothing after the bytes that may still have been on the line when the command went out.
            let quiet = lastOutput.map { $0 <= current.sentAt + Self.lineDrain } ?? true
            return finish(current, quiet ? .confirmedBySilence : (current.garbled ? .garbled : .unanswered), now: now)
        case .pmtkAcknowledgement, .ubxAcknowledgement:
            return finish(current, current.garbled ? .garbled : .unanswered, now: now)
        }
    }

    // MARK: - Helpers

    /// How long output sent before a command may still arrive after it (an epoch of NMEA at 9600 baud).
    static let lineDrain = Duration.milliseconds(500)

    /// The longest interval at which the receiver may output: its confirmed setting's (the fix interval while none
    /// is), or a longer one a command whose answer was lost, or the setting of an earlier link, may have set.
    private var outputInterval: Duration {
        max(confirmedSetting?.outputInterval ?? configuration.fixInterval, unconfirmedInterval ?? .zero)
    }

    /// The output intervals of every setting the driver commands: what a receiver whose setting is not known on
    /// this link may be in.
    private var commandedIntervals: [Duration] { PowerMode.allCases.map { profile(for: $0).outputInterval } }

    /// The commands that put the receiver in `mode`'s setting, made at `now` (a setting refused earlier on the
    /// link is not asked again: the receiver holds the one it confirmed, as of `now`).
    private mutating func plan(for mode: PowerMode, now: Duration) -> [ReceiverCommand] {
        guard let dialect else { return [] }
        let wanted = profile(for: mode)
        guard wanted != applied else {
            // The same setting serves this mode: confirmed for the one before, it is confirmed for this one.
            if let confirmed = confirmedMode, profile(for: confirmed) == wanted {
                confirmedMode = mode
            }
            return []
        }
        applied = wanted
        let commands = dialect.commands(for: wanted).filter { !refused.contains($0.kind) }
        // The setting was refused on this link and is not asked again: the receiver keeps the one it confirmed,
        // which the engine hears again (it asked for another). While the output has yet to tell which setting
        // the receiver is in, there is none to confirm.
        if !commands.contains(where: { $0.resultingState != nil }), evidence == nil, confirmedMode != nil {
            // Held as of this command: the engine takes what is dated before it for an answer to an earlier one.
            settingKept += 1
            confirmedSince = now
        }
        return commands.map {
            var command = $0
            command.mode = mode
            return command
        }
    }

    /// The receiver's setting for the engine's `mode` at the configured fix interval.
    private func profile(for mode: PowerMode) -> ReceiverProfile { ReceiverProfile(mode: mode, fixInterval: configuration.fixInterval) }

    private mutating func advance(now: Duration) -> [Action] {
        while let next = queue.first, refused.contains(next.kind) { queue.removeFirst() }
        guard inFlight == nil, linkOpen, !queue.isEmpty else { return [] }
        return send(queue.removeFirst(), attempt: 1, now: now)
    }

    private mutating func send(_ command: ReceiverCommand, attempt: Int, now: Duration) -> [Action] {
        // A new setting (or a sleep) makes what the output shows about the last one moot.
        if command.resultingState != nil { evidence = nil }
        nextToken &+= 1
        inFlight = InFlight(command: command, token: nextToken, sentAt: now, attempt: attempt)
        let timeout: Duration
        switch command.expectation {
        case .identity: timeout = configuration.identificationTimeout
        case .pmtkAcknowledgement, .ubxAcknowledgement: timeout = configuration.acknowledgementTimeout
        case .silence, .pmtkAcknowledgementOrSilence:
            // Long enough that a receiver still running must have sent its next fix.
            timeout = max(configuration.acknowledgementTimeout, outputInterval + Self.lineDrain * 2)
        }
        return [.write(command.bytes), .armDeadline(token: nextToken, delay: timeout)]
    }

    /// What the identification query's answer `observed` (with `vendor` when a version said it) settles;
    /// `settling` once the last query's deadline has passed (a u-blox that sent UBX but no version is taken as is).
    private mutating func identify(
        _ observed: ReceiverModel, vendor: ReceiverVendor?, keys: Bool = false, settling: Bool = false, now: Duration
    ) -> [Action] {
        guard inFlight != nil else { return [] }
        if model != .autodetect, model != observed {
            inFlight = nil
            return finishIdentification(nil, error: .mismatch(configured: model, observed: observed), now: now)
        }
        // A UBX frame other than MON-VER says "u-blox" but not which generation; wait for the version until the
        // last query's deadline passes (then the legacy messages are tried) — a NAV frame queued on the line
        // ahead of the second query's answer does not settle it either.
        if vendor == nil, observed == .ublox, !settling {
            inFlight?.sawUBX = true
            return []
        }
        inFlight = nil
        dialect = observed == .mediatek ? .mediatek : (keys ? .ubloxKeys : .ubloxLegacy(pm2Version2: Self.pm2Version2(vendor)))
        return finishIdentification(vendor ?? .ublox(software: "", protocolVersion: nil), error: nil, now: now)
    }

    /// Whether a legacy u-blox takes CFG-PM2 version 2 (protocol 18 and later): a version answered without a
    /// protocol (not listed, nor told by its hardware) is from before protocol 15, which listed none; a receiver
    /// that sent UBX but never its version is taken as protocol 18.
    private static func pm2Version2(_ vendor: ReceiverVendor?) -> Bool {
        guard case .ublox(_, let protocolVersion)? = vendor else { return true }
        return (protocolVersion ?? 14) >= 18
    }

    private mutating func identificationFailed(now: Duration) -> [Action] {
        finishIdentification(nil, error: model == .autodetect ? nil : .noAnswer(model), now: now)
    }

    /// The receiver says it has just started (MediaTek's `$PMTK010,001`) after it was identified: it restarted on
    /// its own (a brown-out, a reset) into its defaults, and what the driver knew of its setting is gone. The belief
    /// is unknown until a command confirms one, and the goal's setting (or sleep) is sent again.
    private mutating func restartedOnItsOwn(now: Duration) -> [Action] {
        state = .unknown
        applied = nil
        refused = []
        confirmedMode = nil
        confirmedSetting = nil
        unconfirmedInterval = nil
        unansweredLast = nil
        evidence = nil
        switch goal {
        case .running(let mode): queue = plan(for: mode, now: now)
        case .asleep(let idle): queue = dialect?.sleep(into: idle, over: connection) ?? []
        case .off: queue = []
        }
        return advance(now: now)
    }

    private mutating func finishIdentification(_ vendor: ReceiverVendor?, error: ReceiverControlError?, now: Duration) -> [Action] {
        identified = true
        if vendor == nil { dialect = nil }
        var actions: [Action] = [.identified(vendor)]
        if let error { actions.append(.error(error)) }
        actions.append(.resolved(.identify, vendor == nil ? .unanswered : .acknowledged, fallback: vendor == nil ? .plain : nil))
        switch goal {
        case .running(let mode): queue = plan(for: mode, now: now)
        case .asleep(let idle):
            guard let sleep = dialect?.sleep(into: idle, over: connection), !sleep.isEmpty else { return actions + release() }
            queue = sleep
        case .off: queue = []
        }
        return actions + advance(now: now)
    }

    /// `ambiguous`: the command was answered, but the answer may have been an earlier command's
    /// (``answersUnansweredLastToo(_:)``): it counts as unanswered, yet is not given up on this link.
    private mutating func finish(_ current: InFlight, _ outcome: Outcome, ambiguous: Bool = false, now: Duration, advancing: Bool = true) -> [Action] {
        let kind = current.command.kind
        var actions: [Action] = []
        if outcome.isSuccess {
            unansweredLast = nil
            if let resulting = current.command.resultingState {
                state = resulting
                if kind == .tracking || kind == .powerSave { unconfirmedInterval = nil }
                if let setting = current.command.profile { confirmedSetting = setting }
                // Taken when it was sent: the receiver applies a command as it receives it, and is silent since
                // one that puts it to sleep. Dated at the answer, an acknowledgement that comes after the engine
                // asked for another mode would read as a refusal of that mode.
                confirmedSince = current.sentAt
                if let mode = current.command.mode, case .running = goal { confirmedMode = mode }
            }
            actions.append(.resolved(kind, outcome, fallback: nil))
            if current.command.isSleep, goal.isAsleep, !queue.contains(where: \.isSleep) {
                sleepConfirmed = true
                return actions + closeLink()
            }
        } else {
            // A failed return to tracking is tried again at the next plan, so that continuous tracking stays
            // the worst case; any other refused kind is not sent again on this link (unless its
            // acknowledgement comes late).
            if kind != .tracking, !ambiguous { refused.insert(kind) }
            unansweredLast = outcome == .unanswered ? (current.command, current.sentAt) : nil
            let sleeping = current.command.isSleep
            // A sleep lost with the link is sent again once it is back (as a mode asked while it is down is).
            let owed = sleeping && goal.isAsleep && outcome == .linkLost
            actions.append(.resolved(kind, outcome, fallback: owed ? .sleepOnReconnect : sleeping ? .closePort : .keepSetting))
            if owed {
                state = .unknown
                return actions
            }
            if !sleeping {
                // Unanswered or garbled, the command may have taken effect: until a mode is confirmed, the
                // receiver may output as rarely as the profile it carried.
                if outcome != .refused, let attempted = current.command.profile {
                    unconfirmedInterval = max(unconfirmedInterval ?? .zero, attempted.outputInterval)
                }
                // (A command for the setting already confirmed changes nothing either way.)
                if current.command.resultingState != nil, let attempted = current.command.profile, attempted != confirmedSetting {
                    if outcome == .refused, let kept = confirmedSetting {
                        // Refused: the receiver keeps the setting it confirmed — as of the refused command, which the
                        // engine must not take this for an answer to an earlier one.
                        believe(kept)
                        confirmedSince = current.sentAt
                        if case .running = goal { settingKept += 1 }
                    } else {
                        // It may have taken effect, or (refused with no setting confirmed on this link) the receiver
                        // is in one not known: the setting is unknown until the output shows which — the confirmed
                        // one or the command's, or with none confirmed, any the driver commands.
                        let candidates = confirmedSetting.map { [$0.outputInterval] } ?? commandedIntervals
                        if let output = OutputEvidence(
                            among: candidates + [attempted.outputInterval], sentAt: current.sentAt, lastOutput: lastOutput) {
                            evidence = (output, current.command, confirmedMode)
                        }
                        state = .unknown
                        confirmedMode = nil
                    }
                }
                applied = nil
            }
            if sleeping, goal.isAsleep { return actions + release() }
        }
        // Sent to sleep while this command was in flight, with no sleep step left to send (one was refused
        // earlier on this link): the receiver is released rather than left running behind an open port.
        if goal.isAsleep, !current.command.isSleep, !queue.contains(where: \.isSleep), linkOpen { return actions + release() }
        return advancing ? actions + advance(now: now) : actions
    }

    /// Closes the port leaving the receiver as it is.
    private mutating func release() -> [Action] {
        state = .released
        return closeLink()
    }

    private mutating func closeLink() -> [Action] {
        linkRequested = false
        linkOpen = false
        inFlight = nil
        queue = []
        return [.closeLink]
    }
}
