import CoreMetrics
import LocationEngine
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A `LocationSource` that reads fixes from gpsd over its JSON protocol.
///
/// Power follows the engine: ``start(mode:events:)`` connects and sends
/// `?WATCH={"enable":true,"json":true};`, ``stop()`` sends `?WATCH={"enable":false};` and closes,
/// so gpsd, once its last watcher is gone, releases the receiver (gpsd 3.22 closes the device 60 s
/// later). All three calls return at once; the I/O runs on a NIO event loop.
///
/// - Fixes: every `TPV` with mode 2 or 3 becomes a `Location`; repeated TPVs of one
///   epoch (same `time`) are delivered once. Horizontal accuracy comes from `eph`, else from
///   `epx`/`epy`, converted from gpsd's ≈ 95 % figures to the engine's 68 % radius (see
///   ``AccuracyConversion``).
/// - No fix (mode 0/1): a transient error `gpsd.noFix`, once per loss of fix.
/// - Connection lost: a transient error `gpsd.disconnected`, then reconnection with capped exponential
///   backoff (``ReconnectPolicy``). When attempts fail for ``ReconnectPolicy/giveUpAfter``, a fatal
///   `gpsd.unreachable` that names the address and what to check.
/// - Hostile input (oversized lines, invalid JSON, unknown classes, impossible values) is skipped,
///   counted in ``statistics`` and logged (positions only at `trace` level).
public final class GPSDLocationSource: LocationSource {
    /// gpsd fixes carry a course (`track`); with ``GPSDConfiguration/receiverControl``, the receiver's power
    /// profile (``ReceiverModel/powerProfile``), so the engine powers it down by the break-even of a restart.
    public let capabilities: SourceCapabilities
    /// Where gpsd is and how it is treated.
    public let configuration: GPSDConfiguration

    private let session: GPSDSession
    private let link: ReconnectingLink

    /// Creates a stopped source for the gpsd described by `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: gpsd's address, reconnection and input limits; gpsd on 127.0.0.1:2947 by default.
    ///   - eventLoopGroup: where the connection runs; NIO's shared group by default.
    ///   - logger: receives connection events and skipped input; coordinates only at `trace`.
    ///   - metricsDimensions: added to every metric the source emits (`locationsource_…`, with
    ///     `source` = `gpsd`), to tell several sources apart.
    ///   - metricsFactory: where the metrics go; `nil` uses the bootstrapped `MetricsSystem.factory`.
    public init(
        configuration: GPSDConfiguration = GPSDConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "LocationSources.gpsd"),
        metricsDimensions: [(String, String)] = [],
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.configuration = configuration
        // gpsd keeps the receiver's replies to itself: no command it passes on is ever confirmed, so the engine
        // costs the receiver as tracking however it was commanded (it may well be: another program may keep
        // it awake).
        self.capabilities = SourceCapabilities(
            providesCourse: true,
            powerProfile: configuration.receiverControl.flatMap { $0.model.powerProfile(over: $0.resolvedConnection) },
            confirmsReceiverState: configuration.receiverControl != nil)
        let opener = TCPLinkOpener(
            host: configuration.host, port: configuration.port, role: "gpsd",
            connectTimeout: configuration.connectTimeout,
            troubleshootingHint: "check that gpsd is running (systemctl status gpsd.socket gpsd), that it listens on "
                + "that address (its -S PORT option; -G to listen beyond loopback) and that no firewall blocks it"
        )
        let session = GPSDSession(
            configuration: configuration, endpoint: opener.endpointDescription, hint: opener.troubleshootingHint, logger: logger,
            metrics: SourceMetrics(source: "gpsd", dimensions: metricsDimensions, factory: metricsFactory))
        self.session = session
        self.link = ReconnectingLink(
            opener: opener,
            framing: .lines(maximumLength: configuration.maximumLineLength),
            policy: configuration.reconnect,
            eventLoop: eventLoopGroup.next(),
            greeting: ByteBuffer(string: GPSDSession.watchCommand),
            farewell: ByteBuffer(string: GPSDSession.unwatchCommand),
            // Weakly: the session holds the link (for the receiver's commands), and a source let go must free both.
            onInput: { [weak session] in LinkInputOutcome(understood: session?.receive($0) ?? false) },
            onReport: { [weak session] report in session?.report(report) }
        )
        session.attach(link)
    }

    /// Connects to gpsd and watches it, reporting to `events` until ``stop()``. With
    /// ``GPSDConfiguration/receiverControl``, each connection then wakes the receiver and sets it up for the mode.
    public func start(mode: PowerMode, events: SourceEventSink) {
        session.started(sink: events, mode: mode)
        link.start()
    }

    /// gpsd has no per-client power modes: without ``GPSDConfiguration/receiverControl`` the mode is only
    /// logged; with it, the receiver is sent the mode's commands through gpsd.
    public func setMode(_ mode: PowerMode) {
        for request in session.modeChanged(mode) where !link.send(request) { session.receiverCommandNotSent() }
    }

    /// Un-watches and closes the connection, so gpsd can release the receiver. Idempotent. With
    /// ``GPSDConfiguration/receiverControl``, the receiver is first sent standby (MediaTek) or backup (u-blox).
    public func stop() { stop(into: .off) }

    /// Un-watches and closes the connection, first sending a controlled receiver to the idle state the engine
    /// chose: standby (MediaTek) or backup (u-blox) for standby and off, nothing for `on` (see
    /// ``NMEAStreamSource/stop(into:)``). Again while stopped, nothing changes.
    public func stop(into idle: ReceiverPowerProfile.IdleState) {
        for request in session.stopped(into: idle) where !link.send(request) { session.receiverCommandNotSent() }
        link.stop()
    }

    /// Counters of what gpsd sent, since the source was created.
    public var statistics: GPSDStatistics { session.statistics }

    /// Whether the source is started (connected, connecting or waiting to reconnect).
    public var isRunning: Bool { link.isRunning }
}
