import CoreMetrics
import LocationEngine
import Logging
import NIOCore
import NIOPosix
import NMEA

/// A `LocationSource` that reads NMEA 0183 from a byte stream — a serial device, a
/// TCP feed, a recorded log file or standard input — and decodes it with the NMEA module's
/// `NMEAStreamDecoder`, one fix per epoch.
///
/// Power follows the engine: ``start(mode:events:)`` opens the stream, ``stop()`` closes it. A plain
/// receiver (the default) keeps running on its own power when nothing reads it; a MediaTek or u-blox receiver
/// configured in ``NMEAStreamConfiguration/receiver`` is commanded into power-save modes and standby or backup
/// (see <doc:ReceiverPower>). All calls return at once; the I/O runs on a NIO event loop (file reads on a
/// thread pool).
///
/// - Fixes: epochs with a 2D or 3D fix; accuracy is the epoch's `NMEAEpoch.horizontalAccuracy`
///   converted to the engine's 68 % radius (``AccuracyConversion``). Repeated epochs (same time) are
///   delivered once.
/// - No fix: a transient error `nmea.noFix`, once per loss of fix.
/// - A TCP feed or serial device that fails, closes, or stays silent after opening is reopened with capped
///   exponential backoff (``ReconnectPolicy``): a transient `nmea.disconnected`, then, after
///   ``ReconnectPolicy/giveUpAfter``, a fatal `nmea.unreachable` naming the endpoint and what to check. One
///   that goes quiet once it has answered is kept open: a receiver the engine put in standby is quiet.
/// - A file or standard input that ends reports a transient `nmea.endOfStream` (or, for a file
///   with ``NMEAStreamConfiguration/loopsFile``, plays again).
/// - Decoder errors (bad checksums, truncated sentences, noise) are counted in ``statistics``.
public final class NMEAStreamSource: LocationSource {
    /// NMEA fixes carry a course (RMC/VTG track); a commanded receiver of a known model describes its power
    /// (``ReceiverModel/powerProfile``), so the engine powers it down by the break-even of a restart.
    public let capabilities: SourceCapabilities
    /// What the source reads and how.
    public let configuration: NMEAStreamConfiguration

    private let session: NMEAStreamSession
    private let link: ReconnectingLink

    /// Creates a stopped source.
    ///
    /// - Parameters:
    ///   - configuration: where the NMEA comes from, and how it is read and reconnected.
    ///   - eventLoopGroup: where the stream is read; NIO's shared group by default.
    ///   - threadPool: where files are read (blocking reads); NIO's shared pool by default.
    ///   - logger: receives stream events; coordinates only at `trace`.
    ///   - metricsDimensions: added to every metric the source emits (`locationsource_…`, with
    ///     `source` = `nmea`), to tell several sources apart.
    ///   - metricsFactory: where the metrics go; `nil` uses the bootstrapped `MetricsSystem.factory`.
    public init(
        configuration: NMEAStreamConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        threadPool: NIOThreadPool = .singleton,
        logger: Logger = Logger(label: "LocationSources.nmea"),
        metricsDimensions: [(String, String)] = [],
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.configuration = configuration
        self.capabilities = SourceCapabilities(
            providesCourse: true,
            powerProfile: configuration.commandsReceiver
                ? configuration.receiver.model.powerProfile(over: configuration.resolvedReceiver.connection ?? .uart) : nil,
            confirmsReceiverState: configuration.commandsReceiver)
        let opener: any LinkOpener
        switch configuration.endpoint {
        case .tcp(let host, let port):
            opener = TCPLinkOpener(
                host: host, port: port, role: "NMEA feed", connectTimeout: configuration.connectTimeout,
                troubleshootingHint: "check that the feed is running and listening on that address")
        case .serial(let path, let baudRate):
            opener = SerialLinkOpener(path: path, baudRate: baudRate)
        case .file(let path, _):
            opener = FileLinkOpener(path: path, threadPool: threadPool)
        case .standardInput:
            opener = StandardInputLinkOpener(threadPool: threadPool)
        }
        let eventLoop = eventLoopGroup.next()
        let session = NMEAStreamSession(
            configuration: configuration, eventLoop: eventLoop, endpoint: opener.endpointDescription,
            hint: opener.troubleshootingHint, logger: logger,
            metrics: SourceMetrics(source: "nmea", dimensions: metricsDimensions, factory: metricsFactory))
        self.session = session
        self.link = ReconnectingLink(
            opener: opener, framing: .bytes, policy: configuration.reconnect, eventLoop: eventLoop,
            replaysFiniteStreams: configuration.replaysFile,
            // Weakly: the session holds the link (for the receiver's commands), and a source let go must free both.
            onInput: { [weak session] in session?.receive($0) ?? LinkInputOutcome(understood: false) },
            onReport: { [weak session] in session?.report($0) }
        )
        session.attach(link)
    }

    /// A source reading `endpoint` with default settings.
    public convenience init(_ endpoint: NMEAStreamEndpoint, logger: Logger = Logger(label: "LocationSources.nmea")) {
        self.init(configuration: NMEAStreamConfiguration(endpoint: endpoint), logger: logger)
    }

    /// Opens the stream and reports to `events` until ``stop()``. A commanded receiver (see
    /// ``NMEAStreamConfiguration/receiver``) is woken, identified and set up for `mode` once the port is open.
    public func start(mode: PowerMode, events: SourceEventSink) {
        session.started(sink: events, mode: mode)
        if session.commandsReceiver {
            session.receiverStart(mode)
        } else {
            link.start()
        }
    }

    /// Sets a commanded receiver up for `mode`: continuous tracking for best and high, power save or periodic
    /// operation with longer intervals for medium, low and lowest. A plain receiver is not commanded.
    public func setMode(_ mode: PowerMode) {
        if session.commandsReceiver { session.receiverSetMode(mode) }
    }

    /// Closes the stream. Idempotent. A commanded receiver is first put in standby (MediaTek) or backup (u-blox),
    /// and the port closed once it has confirmed; a plain receiver keeps running on its own power.
    public func stop() { stop(into: .off) }

    /// Closes the stream, putting a commanded receiver in the idle state the engine chose: standby and off both
    /// reach the receiver's one commanded sleep state (standby on a MediaTek, backup on a u-blox, as its power
    /// profile prices them); `on` closes the port and leaves it tracking. Again while stopped (a step deeper),
    /// nothing changes. A plain receiver keeps running on its own power.
    public func stop(into idle: ReceiverPowerProfile.IdleState) {
        session.stopped()
        if session.commandsReceiver {
            session.receiverStop(into: idle)
        } else {
            link.stop()
        }
    }

    /// Decoder counters and what became of the epochs, since the source was created.
    public var statistics: NMEAStreamStatistics { session.statistics }

    /// Whether the source is started (open, opening or waiting to reopen).
    public var isRunning: Bool { link.isRunning }
}
