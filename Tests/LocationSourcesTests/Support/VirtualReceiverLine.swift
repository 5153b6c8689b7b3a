import LocationEngine
@testable import LocationSources
import ReceiverControl
import SyntheticGPS

/// A receiver driver and a synthetic receiver persona wired together on virtual time: the driver's writes
/// reach the persona at once, the persona's replies and output reach the driver one step later, deadlines
/// fire when virtual time reaches them. The bytes are the real ones, split and read as the NMEA source reads
/// them (``NMEAStreamSession/driverInput(_:)``); only the line and the clock are simulated, so that what the
/// driver believes can be compared with what the receiver does at exact instants.
struct VirtualReceiverLine {
    /// What the driver (and through it the engine) believes the receiver is doing, or what it does.
    enum Setting: Sendable, Hashable, CustomStringConvertible {
        /// Running continuously, outputting at this interval.
        case tracking(Duration)
        /// Running in power save, one fix per interval.
        case powerSave(Duration)
        case standby
        /// Backup, or gone from the bus.
        case off
        /// Not known (believed only): costed as the dearest.
        case unknown

        var description: String {
            switch self {
            case .tracking(let interval): "tracking every \(interval)"
            case .powerSave(let interval): "power save every \(interval)"
            case .standby: "standby"
            case .off: "off"
            case .unknown: "unknown"
            }
        }
    }

    private(set) var driver: ReceiverDriverStateMachine
    private(set) var receiver: CommandedReceiver
    private(set) var now = Duration.zero
    private let configuration: ReceiverControlConfiguration
    private var linkOpen = false
    private var deadlines: [(token: UInt64, due: Duration)] = []
    private var splitter = ReceiverStreamSplitter()
    private var dating = OutputDating()
    private var readerHeldUntil: Duration?
    /// Bytes from the receiver on their way to the driver (delivered at the next step).
    private var inbound: [UInt8] = []
    /// What the engine asked last: running, or down.
    private(set) var running = false
    /// The mode the engine asked last, or the idle state it stopped the source into.
    private var askedMode: PowerMode?
    private var askedIdle: ReceiverPowerProfile.IdleState?
    /// Whether the driver's writes fail (the link closed under them): none reaches the receiver.
    var writesFail = false
    /// Every action the driver took, for failure messages.
    private(set) var trace: [String] = []

    /// How far virtual time moves in one step.
    static let step = Duration.milliseconds(50)

    init(receiver: CommandedReceiver, configuration: ReceiverControlConfiguration) {
        self.receiver = receiver
        self.configuration = configuration
        driver = ReceiverDriverStateMachine(configuration: configuration)
    }

    /// The engine started the source in `mode`.
    mutating func start(_ mode: PowerMode) {
        running = true
        (askedMode, askedIdle) = (mode, nil)
        perform(driver.start(mode: mode, now: now))
    }

    /// The engine changed the mode.
    mutating func setMode(_ mode: PowerMode) {
        askedMode = mode
        perform(driver.setMode(mode, now: now))
    }

    /// The engine stopped the source into `idle`.
    mutating func stop(into idle: ReceiverPowerProfile.IdleState) {
        running = false
        askedIdle = idle
        perform(driver.stop(into: idle, now: now))
    }

    /// The link closed under the driver (a cable pulled, a bridge restarted): the receiver keeps running.
    mutating func dropLink() {
        guard linkOpen else { return }
        linkOpen = false
        inbound = []
        perform(driver.linkClosed(now: now))
    }

    /// The link came back (the link reopens by itself while the driver keeps it requested).
    mutating func reopenLink() {
        guard !linkOpen else { return }
        linkOpen = true
        splitter = ReceiverStreamSplitter()
        dating = OutputDating()
        perform(driver.linkOpened(now: now))
    }

    /// What the engine asked, as a receiver that obeys carries it out: the setting of the running mode; down,
    /// the dialect's one sleep state (a MediaTek's standby, a u-blox's backup, or on its own USB port the
    /// lowest mode's power save). `nil` for a receiver left as it was (stopped into `on`).
    var asked: Setting? {
        guard let idle = askedIdle else { return askedMode.map { Self.setting($0, fixInterval: configuration.fixInterval) } }
        guard idle != .on else { return nil }
        switch receiver.persona {
        case .mediatek: return .standby
        case .ublox: return receiver.attachedByNativeUSB ? Self.setting(.lowest, fixInterval: configuration.fixInterval) : .off
        case .plain: return nil
        }
    }

    /// The setting of the engine's `mode`.
    static func setting(_ mode: PowerMode, fixInterval: Duration) -> Setting {
        switch ReceiverProfile(mode: mode, fixInterval: fixInterval) {
        case .tracking(let interval): .tracking(interval)
        case .powerSave(let interval): .powerSave(interval)
        }
    }

    /// Holds the driver's reader for `duration` from now (its thread starved, its event loop busy elsewhere):
    /// what the receiver sends meanwhile waits on the line, and is read at once when the time is up. Deadlines
    /// still fire.
    mutating func holdReader(for duration: Duration) { readerHeldUntil = now + duration }

    /// Changes how the receiver misbehaves from now on.
    mutating func misbehave(_ change: (inout CommandedReceiver) -> Void) { change(&receiver) }

    /// Moves virtual time by `duration`, step by step.
    mutating func advance(by duration: Duration) {
        let end = now + duration
        while now < end {
            now += Self.step
            let seconds = Double(now.components.seconds) + Double(now.components.attoseconds) * 1e-18
            let output = receiver.output(through: seconds)
            if linkOpen { inbound += output }
            // A reader held up leaves what comes on the line, and reads it all at once when it is free.
            if !(readerHeldUntil.map { now < $0 } ?? false) {
                let bytes = inbound
                inbound = []
                if !bytes.isEmpty { feed(bytes) }
            }
            while let index = deadlines.firstIndex(where: { $0.due <= now }) {
                let token = deadlines.remove(at: index).token
                perform(driver.deadline(token, now: now))
            }
        }
    }

    /// What the driver believes: the setting it confirmed while the engine runs the source, where it
    /// confirmed the receiver went while it is down (the receiver left as it was: its setting, if confirmed).
    var believed: Setting {
        Self.believed(
            running: running, state: driver.state, sleepConfirmed: driver.sleepConfirmed, confirmedMode: driver.confirmedMode,
            fixInterval: configuration.fixInterval)
    }

    /// What the receiver does.
    var actual: Setting { Self.actual(receiver, fixInterval: configuration.fixInterval) }

    /// What a driver in this state believes (see ``believed``).
    static func believed(
        running: Bool, state: ReceiverPowerState, sleepConfirmed: Bool, confirmedMode: PowerMode?, fixInterval: Duration
    ) -> Setting {
        func setting(_ mode: PowerMode?) -> Setting { mode.map { Self.setting($0, fixInterval: fixInterval) } ?? .unknown }
        if running { return setting(confirmedMode) }
        // Down: where the driver confirmed the receiver went, as the engine hears it (standby for a u-blox
        // waiting in the lowest mode's power save on its own USB port); a receiver released to track on its own
        // keeps its confirmed setting.
        switch NMEAStreamSession.idleState(state, sleepConfirmed: sleepConfirmed) {
        case .standby: return state == .powerSave ? setting(.lowest) : .standby
        case .off: return .off
        case .on: return state == .released ? setting(confirmedMode) : .unknown
        }
    }

    /// What `receiver` does, seen as a setting.
    static func actual(_ receiver: CommandedReceiver, fixInterval: Duration) -> Setting {
        if receiver.vanished { return .off }
        switch receiver.phase {
        case .standby: return .standby
        case .backup: return .off
        case .acquisition, .tracking, .powerSave:
            let interval = Duration.milliseconds(Int64((receiver.outputInterval * 1000).rounded()))
            return interval > fixInterval ? .powerSave(interval) : .tracking(interval)
        }
    }

    // MARK: - Internals

    private mutating func feed(_ bytes: [UInt8]) {
        var pieces: [ReceiverStreamSplitter.Piece] = []
        splitter.feed(bytes) { pieces.append($0) }
        for piece in pieces {
            guard let input = NMEAStreamSession.driverInput(piece) else { continue }
            perform(driver.received(input, now: NMEAStreamSession.sentAt(input, of: piece, readAt: now, dating: &dating)))
        }
    }

    private mutating func perform(_ actions: [ReceiverDriverStateMachine.Action]) {
        var queue = actions[...]
        while let action = queue.popFirst() {
            trace.append("\(now): \(action)")
            if trace.count > 200 { trace.removeFirst() }
            switch action {
            case .write(_) where writesFail:
                queue.append(contentsOf: driver.writeFailed(now: now))
            case .write(let bytes):
                let seconds = Double(now.components.seconds) + Double(now.components.attoseconds) * 1e-18
                let replies = receiver.receive(bytes, at: seconds)
                if linkOpen { inbound += replies }
            case .armDeadline(let token, let delay):
                deadlines.append((token, now + delay))
            case .openLink:
                linkOpen = true
                splitter = ReceiverStreamSplitter()
                dating = OutputDating()
                queue.append(contentsOf: driver.linkOpened(now: now))
            case .closeLink:
                linkOpen = false
                inbound = []
                deadlines = []
            case .resolved, .identified, .error:
                continue
            }
        }
    }
}
