@_spi(Internals) import LocationEngine
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NMEA
import ReceiverControl

/// The state of an ``NMEAStreamSource`` between its link and the engine: the sink, the decoder, the
/// converter and the replay pacer. Input arrives in order on the link's event loop; the engine's
/// start/stop arrive from its executor; a lock guards both, and events are sent after leaving it.
final class NMEAStreamSession: Sendable {
    struct State: Sendable {
        var sink: SourceEventSink?
        /// Bumped on every start and stop, so that paced epochs scheduled before are dropped.
        var generation: UInt64 = 0
        var decoder: NMEAStreamDecoder
        var converter: NMEAEpochConverter
        var pacer: EpochPacer?
        var statistics = NMEAStreamStatistics()
        var noFixReported = false
        /// The delivery of the last paced epoch, so that an end-of-stream report comes after it.
        var lastPacedDelivery: EventLoopFuture<Void>?
        /// The paced deliveries scheduled and not yet due, each with when it is: a stop cancels them, so that the
        /// replay's link is not held (nor its descriptor kept) until they would have been due.
        var pacedSends: [(task: Scheduled<Void>, due: Duration)] = []
        /// The receiver driver, when the receiver is commanded (see ``ReceiverControlConfiguration``).
        var receiver: ReceiverState?
        /// The last session's sink, kept after a stop: the receiver's power-down is confirmed after it.
        var receiverStateSink: SourceEventSink?
    }

    /// A commanded receiver's driver, the splitter that separates its replies from the NMEA, and the link it commands.
    struct ReceiverState: Sendable {
        var driver: ReceiverDriverStateMachine
        var splitter = ReceiverStreamSplitter()
        /// Dates the receiver's output by its own clock, for the driver (see ``OutputDating``).
        var dating = OutputDating()
        var statistics = ReceiverControlStatistics()
        var link: ReconnectingLink?
    }

    let state: NIOLockedValueBox<State>
    /// Each reading's hand-over to the sink, from the check that its session is current to the sink's return:
    /// a stop waits for one in progress, so that no fix of the session reaches the sink, or counts as
    /// delivered, after it returns.
    private let handOver = SinkHandOver()
    let eventLoop: any EventLoop
    private let endpoint: String
    private let trouble: LinkTroubleReport
    let logger: Logger
    let metrics: SourceMetrics

    /// Whether the receiver is commanded (a driver other than plain, on a link that can be written).
    let commandsReceiver: Bool
    /// Whether the input is a log played again each time it ends (``NMEAStreamConfiguration/loopsFile``): each
    /// pass's epochs are new ones, not repeats of the last pass's.
    let replaysPasses: Bool

    init(
        configuration: NMEAStreamConfiguration, eventLoop: any EventLoop, endpoint: String, hint: String, logger: Logger,
        metrics: SourceMetrics
    ) {
        self.metrics = metrics
        self.commandsReceiver = configuration.commandsReceiver
        replaysPasses = configuration.replaysFile
        var pacer: EpochPacer?
        if case .file(_, .recorded(let speed, let maximumGap)) = configuration.endpoint {
            pacer = EpochPacer(speed: speed, maximumGap: maximumGap)
        }
        self.state = NIOLockedValueBox(
            State(
                decoder: NMEAStreamDecoder(maximumLineLength: configuration.maximumLineLength, checksumPolicy: configuration.checksumPolicy),
                converter: NMEAEpochConverter(unmeasuredAccuracy: configuration.unmeasuredAccuracy),
                pacer: pacer,
                receiver: configuration.commandsReceiver
                    ? ReceiverState(
                        driver: ReceiverDriverStateMachine(configuration: configuration.resolvedReceiver),
                        splitter: ReceiverStreamSplitter(maximumLineLength: configuration.maximumLineLength)) : nil))
        self.eventLoop = eventLoop
        self.endpoint = endpoint
        var logger = logger
        logger[metadataKey: "nmea"] = "\(configuration.endpoint)"
        self.logger = logger
        self.trouble = LinkTroubleReport(wording: .nmeaStream, endpoint: endpoint, hint: hint, logger: logger, metrics: metrics)
    }

    var statistics: NMEAStreamStatistics {
        state.withLockedValue { state in
            var statistics = state.statistics
            statistics.decoder = state.decoder.statistics
            if let receiver = state.receiver { statistics.receiver = receiver.statistics }
            return statistics
        }
    }

    func started(sink: SourceEventSink, mode: PowerMode) {
        state.withLockedValue { state in
            // What the last session left half-read (a partial line, an open epoch) is not this one's.
            var leftOver = 0
            state.decoder.finish { epoch in if epoch.mode == .twoD || epoch.mode == .threeD { leftOver += 1 } }
            state.statistics.staleFixes += leftOver
            metrics.fix(.stale, count: leftOver)
            state.converter.startSession()
            state.sink = sink
            state.receiverStateSink = sink
            state.generation &+= 1
            state.noFixReported = false
            state.pacer?.reset()
            state.lastPacedDelivery = nil
        }
        logger.debug("opening NMEA stream", metadata: ["mode": "\(mode)"])
    }

    func stopped() {
        let pending = state.withLockedValue { state in
            state.sink = nil
            state.generation &+= 1
            defer { state.pacedSends = [] }
            return state.pacedSends
        }
        for paced in pending { paced.task.cancel() }
        handOver.awaitIdle()
        logger.debug("closing NMEA stream")
    }

    /// Decodes a chunk and delivers its fixes, now or (for a paced replay) when due. Returns whether the
    /// chunk held a sentence that decoded (or a commanded receiver's reply), and a future that completes
    /// when the last of its fixes was delivered, or `nil` when all went at once.
    func receive(_ input: LinkInput) -> LinkInputOutcome { handOver.deliver { decodeAndDeliver(input) } }

    private func decodeAndDeliver(_ input: LinkInput) -> LinkInputOutcome {
        guard case .bytes(let buffer) = input else {
            preconditionFailure("NMEAStreamSession.receive: a line-framed link feeds an NMEA stream")
        }
        if commandsReceiver { return receiveMixed(buffer) }
        var understood = false
        let delivered = decode { state, _, onEpoch in
            let before = state.decoder.sentencesDecoded
            buffer.withUnsafeReadableBytes { state.decoder.feed($0, onEpoch: onEpoch) }
            understood = state.decoder.sentencesDecoded != before
        }
        return LinkInputOutcome(understood: understood, delivered: delivered)
    }

    /// A link's input ended: the open epoch is complete as far as it will get. A looped log's next pass
    /// repeats its times: its epochs are not duplicates of this pass's.
    func inputEnded() {
        _ = decode { state, _, onEpoch in
            state.decoder.finish(onEpoch: onEpoch)
            if replaysPasses { state.converter.startSession() }
        }
    }

    /// Runs `body` on the state under the lock (with the current time), then delivers the epochs it completed.
    func decode(_ body: (inout State, Duration, (NMEAEpoch) -> Void) -> Void) -> EventLoopFuture<Void>? {
        let now = Duration.nanoseconds(Int64(clamping: NIODeadline.now().uptimeNanoseconds))
        let (events, generation) = state.withLockedValue { state -> ([(SourceEvent, Duration?)], UInt64) in
            var epochs: [NMEAEpoch] = []
            // O(1) counts: the snapshot of every kind made two dictionaries for every chunk read.
            let rejectedBefore = state.decoder.linesRejected
            body(&state, now) { epochs.append($0) }
            metrics.skipped(.rejectedSentence, count: state.decoder.linesRejected - rejectedBefore)
            var events: [(SourceEvent, Duration?)] = []
            for epoch in epochs {
                let due = state.pacer?.due(recordedAt: epoch.unixTime ?? epoch.secondsOfDay, now: now)
                switch state.converter.convert(epoch) {
                case .fix(let location):
                    // Counted as delivered (or stale) when it is sent.
                    state.noFixReported = false
                    events.append((.location(location, age: .zero), due))
                case .noFix:
                    metrics.fix(.noFix)
                    state.statistics.noFixEpochs += 1
                    guard !state.noFixReported else { continue }
                    state.noFixReported = true
                    let error = SourceError(code: "nmea.noFix", message: "the receiver reports no fix; waiting for it to acquire one")
                    events.append((.transientError(error), due))
                case .duplicate:
                    metrics.fix(.duplicate)
                    state.statistics.duplicateEpochs += 1
                case .invalid:
                    metrics.fix(.invalid)
                    state.statistics.invalidFixes += 1
                case .noPosition:
                    metrics.fix(.noPosition)
                    state.statistics.epochsWithoutPosition += 1
                case .noAccuracy:
                    metrics.fix(.noAccuracy)
                    state.statistics.fixesWithoutAccuracy += 1
                }
            }
            return (events, state.generation)
        }
        var last: EventLoopFuture<Void>?
        var scheduled: [(task: Scheduled<Void>, due: Duration)] = []
        for (event, due) in events {
            guard let due, due > now else {
                send(event, generation: generation)
                continue
            }
            let task = eventLoop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(clamping: due.saturatingNanoseconds))) { [self] in
                send(event, generation: generation)
            }
            // Cancelled by a stop before it was due: a fix of the ended session, counted as such.
            if case .location = event { task.futureResult.whenFailure { [self] _ in countStale() } }
            scheduled.append((task, due))
            last = task.futureResult
        }
        if let last {
            let stoppedSince = state.withLockedValue { state in
                state.lastPacedDelivery = last
                state.pacedSends.removeAll { $0.due <= now }
                guard state.generation == generation else { return true }
                state.pacedSends += scheduled
                return false
            }
            // Stopped while they were scheduled: cancelled as the stop would have.
            if stoppedSince { for paced in scheduled { paced.task.cancel() } }
        }
        return last
    }

    /// Counts a paced fix its session's stop cancelled as stale.
    private func countStale() {
        state.withLockedValue { $0.statistics.staleFixes += 1 }
        metrics.fix(.stale)
    }

    /// Sends `event` if its session (`generation`) is still the current one; a fix is counted as
    /// delivered, or as stale when its session has ended.
    private func send(_ event: SourceEvent, generation: UInt64) {
        handOver.deliver {
            let fix: Location? = if case .location(let location, _) = event { location } else { nil }
            let sink = state.withLockedValue { state -> SourceEventSink? in
                let sink = state.generation == generation ? state.sink : nil
                if let fix {
                    if sink != nil { state.statistics.fixesDelivered += 1 } else { state.statistics.staleFixes += 1 }
                    if sink != nil && fix.horizontalAccuracyIsEstimated { state.statistics.fixesWithAssumedAccuracy += 1 }
                }
                return sink
            }
            if case .location(let location, _) = event {
                metrics.fix(sink != nil ? .delivered : .stale)
                logger.trace("fix", metadata: ["lat": "\(location.latitude)", "lon": "\(location.longitude)", "accuracy": "\(location.horizontalAccuracy)"])
            }
            sink?.send(event)
        }
    }

    /// A connection event from the link.
    func report(_ report: LinkReport) { handOver.deliver { handle(report) } }

    private func handle(_ report: LinkReport) {
        switch report {
        case .opened:
            receiverLinkOpened()
        case .connected:
            state.withLockedValue { $0.statistics.connections += 1 }
            metrics.connections.increment()
            logger.info("NMEA stream open")
        case .inputEnded:
            inputEnded()
            receiverLinkClosed()
        case .disconnected(let failure):
            let sink = state.withLockedValue { state in
                state.statistics.disconnections += 1
                return state.sink
            }
            trouble.disconnected(failure, tell: sink)
        case .gaveUp(let failures, let lastFailure):
            trouble.gaveUp(failures: failures, lastFailure: lastFailure, tell: state.withLockedValue { $0.sink })
            if commandsReceiver { receiverLinkGaveUp() }
        case .endOfStream:
            logger.notice("NMEA stream ended")
            let error = SourceError(code: "nmea.endOfStream", message: "\(endpoint) ended; no more fixes will come from it")
            let (generation, pending) = state.withLockedValue { ($0.generation, $0.lastPacedDelivery) }
            // After the epochs of a paced replay that are still scheduled.
            if let pending {
                pending.whenComplete { [self] _ in send(.transientError(error), generation: generation) }
            } else {
                send(.transientError(error), generation: generation)
            }
        }
    }
}
