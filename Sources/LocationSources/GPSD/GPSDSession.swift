import LocationEngine
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The state of a ``GPSDLocationSource`` between its connection and the engine: the sink, the
/// interpreter and its counters. Input arrives in order from the link's event loop; the engine's
/// start/stop arrive from its executor; a lock guards both, and events are sent after leaving it.
final class GPSDSession: Sendable {
    /// Sent after each connect.
    static let watchCommand = "?WATCH={\"enable\":true,\"json\":true};\n"
    /// Sent before a clean close.
    static let unwatchCommand = "?WATCH={\"enable\":false};\n"

    private struct State: Sendable {
        var sink: SourceEventSink?
        var interpreter: GPSDReportInterpreter
        /// Whether `gpsd.noFix` was reported since the last fix (it is reported once per loss).
        var noFixReported = false
        /// Skip reasons already logged at warning level (later ones go to debug).
        var warned: Set<String> = []
        /// The mode the engine asked for last, while started.
        var mode: PowerMode?
        /// The link, for the receiver commands sent when it opens.
        var link: ReconnectingLink?
        /// The receiver set-up waits for gpsd to say it has identified the device on this connection (a
        /// DEVICES or DEVICE report naming its driver, or a TPV from it): gpsd writes `hexdata` only to a
        /// device whose type it has identified ("Type of … is unknown" otherwise). A receiver left asleep
        /// sends nothing, so a device gpsd still holds is woken on its DEVICES entry, not its first TPV.
        var setupPending = false
        /// The sleep the last stop sent (empty for a stop into `on`), until the next start: a stop again into the
        /// same changes nothing.
        var sleepSent: [ByteBuffer]?
    }

    private let receiverControl: GPSDReceiverControl?

    private let state: NIOLockedValueBox<State>
    /// Each report's hand-over to the sink, from the check that a session runs to the sink's return: a stop
    /// waits for one in progress, so that no fix reaches the sink, or counts as delivered, after it returns.
    private let handOver = SinkHandOver()
    private let logger: Logger
    private let metrics: SourceMetrics
    private let trouble: LinkTroubleReport

    init(configuration: GPSDConfiguration, endpoint: String, hint: String, logger: Logger, metrics: SourceMetrics) {
        self.metrics = metrics
        self.receiverControl = configuration.receiverControl
        self.state = NIOLockedValueBox(State(interpreter: GPSDReportInterpreter(unmeasuredAccuracy: configuration.unmeasuredAccuracy, inSession: false)))
        var logger = logger
        logger[metadataKey: "gpsd"] = "\(configuration.address)"
        self.logger = logger
        self.trouble = LinkTroubleReport(wording: .gpsd, endpoint: endpoint, hint: hint, logger: logger, metrics: metrics)
    }

    var statistics: GPSDStatistics { state.withLockedValue { $0.interpreter.statistics } }

    /// Gives the session the link its receiver commands go through.
    func attach(_ link: ReconnectingLink) {
        state.withLockedValue { $0.link = link }
    }

    func started(sink: SourceEventSink, mode: PowerMode) {
        state.withLockedValue {
            $0.sink = sink
            $0.sleepSent = nil
            $0.noFixReported = false
            $0.interpreter.startSession()
            $0.mode = mode
        }
        logger.debug("connecting to gpsd", metadata: ["mode": "\(mode)"])
    }

    /// The requests that set the receiver up for `mode` (none without receiver control, or while the set-up
    /// waits for gpsd's first report: it will use the new mode).
    func modeChanged(_ mode: PowerMode) -> [ByteBuffer] {
        let pending = state.withLockedValue { state in
            state.mode = mode
            return state.setupPending
        }
        guard let receiverControl, !pending else {
            logger.debug("power mode changed; gpsd sets the receiver's own mode", metadata: ["mode": "\(mode)"])
            return []
        }
        logger.debug("power mode changed; commanding the receiver through gpsd", metadata: ["mode": "\(mode)"])
        return receiverControl.setUp(mode)
    }

    /// The requests that put the receiver in `idle` (none without receiver control, or for `on`).
    func stopped(into idle: ReceiverPowerProfile.IdleState) -> [ByteBuffer] {
        let sleep = receiverControl?.sleep(into: idle) ?? []
        let repeated = state.withLockedValue { state -> Bool in
            state.sink = nil
            state.mode = nil
            state.interpreter.endSession()
            // Stopped again into what the last stop sent: nothing to send, nothing to count.
            defer { state.sleepSent = sleep }
            return state.sleepSent == sleep
        }
        handOver.awaitIdle()
        if repeated { return [] }
        logger.debug("un-watching gpsd and closing")
        guard !sleep.isEmpty else { return [] }
        logger.debug("sending the receiver to sleep through gpsd", metadata: ["device": "\(receiverControl?.devicePath ?? "")"])
        return sleep
    }

    /// A receiver command could not be sent: the connection to gpsd is down (it is sent again with the
    /// setup when the connection comes back, but a sleep command is lost). Counted and logged.
    func receiverCommandNotSent() {
        state.withLockedValue { $0.interpreter.receiverCommandNotSent() }
        logger.notice("receiver command not sent: the connection to gpsd is down", metadata: ["device": "\(receiverControl?.devicePath ?? "")"])
    }

    /// One line (or an oversized one) from the current connection. Returns whether it was one of gpsd's
    /// reports (a JSON object with a class, whatever the class): only that makes a connection count as gpsd.
    func receive(_ input: LinkInput) -> Bool { handOver.deliver { interpretAndDeliver(input) } }

    private func interpretAndDeliver(_ input: LinkInput) -> Bool {
        var setup: [ByteBuffer] = []
        var setupLink: ReconnectingLink?
        defer { for request in setup where setupLink?.send(request) != true { receiverCommandNotSent() } }
        let (outcome, sink, warn) = state.withLockedValue { state -> (GPSDReportInterpreter.Outcome, SourceEventSink?, Bool) in
            let outcome: GPSDReportInterpreter.Outcome
            switch input {
            case .line(let line):
                outcome = state.interpreter.interpret(line: line, now: .nanoseconds(Int64(clamping: NIODeadline.now().uptimeNanoseconds)))
            case .oversizedLine: outcome = state.interpreter.oversizedLine()
            case .bytes: preconditionFailure("GPSDSession.receive: raw bytes on a line-framed link")
            }
            metrics.record(outcome)
            if state.setupPending, let receiverControl, let mode = state.mode {
                let identified: Bool
                switch outcome {
                case .fix, .noFix, .duplicate:
                    identified = state.interpreter.lastReportDevice.map { $0 == receiverControl.devicePath } ?? true
                case .devices(_, let paths): identified = paths.contains(receiverControl.devicePath)
                case .deviceIdentified(let path): identified = path == receiverControl.devicePath
                default: identified = false
                }
                if identified {
                    state.setupPending = false
                    setup = receiverControl.wakeAndSetUp(mode)
                    setupLink = state.link
                }
            }
            var warn = false
            switch outcome {
            case .fix:
                state.noFixReported = false
            case .noFix:
                if state.noFixReported { return (.ignored, nil, false) }
                state.noFixReported = true
            case .skipped(let reason):
                warn = state.warned.insert(reason.rawValue).inserted
            case .duplicate, .stale, .gpsdError, .devices, .deviceIdentified, .ignored:
                break
            }
            return (outcome, state.sink, warn)
        }
        defer { if case .skipped(let reason) = outcome { logSkipped(reason, input: input, warn: warn) } }
        switch outcome {
        case .fix(let location):
            logger.trace("fix", metadata: ["lat": "\(location.latitude)", "lon": "\(location.longitude)", "accuracy": "\(location.horizontalAccuracy)"])
            sink?.location(location)
        case .noFix:
            sink?.transientError(SourceError(code: "gpsd.noFix", message: "gpsd reports no fix (mode 0/1); waiting for the receiver to acquire one"))
        case .skipped(.oversizedLine), .skipped(.malformedReport):
            return false
        case .skipped:
            break
        case .gpsdError(let message):
            logger.warning("gpsd reported an error", metadata: ["message": "\(message)"])
        case .devices(let count, _):
            if count == 0 { logger.notice("gpsd has no receiver attached yet; fixes will start when one appears") }
        case .duplicate, .stale, .deviceIdentified, .ignored:
            break
        }
        return true
    }

    private func logSkipped(_ reason: GPSDReportInterpreter.SkipReason, input: LinkInput, warn: Bool) {
        let size: Logger.MetadataValue
        if case .oversizedLine(let count) = input { size = "\(count)" } else if case .line(let line) = input { size = "\(line.readableBytes)" } else { size = "?" }
        logger.log(level: warn ? .warning : .debug, "skipped a line from gpsd", metadata: ["reason": "\(reason.rawValue)", "bytes": size])
    }

    /// A connection event from the link.
    func report(_ report: LinkReport) { handOver.deliver { handle(report) } }

    private func handle(_ report: LinkReport) {
        switch report {
        case .connected:
            state.withLockedValue { $0.interpreter.connected() }
            metrics.connections.increment()
            logger.info("connected to gpsd")
        case .opened:
            // After the greeting's ?WATCH (which makes gpsd open the device): the receiver is woken and set up at
            // gpsd's first report from it.
            if receiverControl != nil { state.withLockedValue { $0.setupPending = true } }
        case .inputEnded:
            break
        case .disconnected(let failure):
            let sink = state.withLockedValue { state in
                state.interpreter.disconnected()
                return state.sink
            }
            trouble.disconnected(failure, tell: sink)
        case .gaveUp(let failures, let lastFailure):
            trouble.gaveUp(failures: failures, lastFailure: lastFailure, tell: state.withLockedValue { $0.sink })
        case .endOfStream:
            break
        }
    }
}

extension SourceMetrics {
    /// Counts what one line from gpsd amounted to (every no-fix report, though only the first is told).
    func record(_ outcome: GPSDReportInterpreter.Outcome) {
        switch outcome {
        case .fix: fix(.delivered)
        case .noFix: fix(.noFix)
        case .duplicate: fix(.duplicate)
        case .stale: fix(.stale)
        case .skipped(.invalidValue): fix(.invalid)
        case .skipped(.noAccuracy): fix(.noAccuracy)
        case .skipped(.oversizedLine): skipped(.oversizedLine)
        case .skipped(.malformedReport): skipped(.malformed)
        case .skipped(.unexpectedClass): skipped(.unexpectedClass)
        case .gpsdError, .devices, .deviceIdentified, .ignored: break
        }
    }
}
