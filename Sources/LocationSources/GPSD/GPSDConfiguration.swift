/// Where a ``GPSDLocationSource`` finds gpsd and how it treats it.
public struct GPSDConfiguration: Sendable, Hashable {
    /// gpsd's host. Default `127.0.0.1` (gpsd listens on loopback unless started with `-G`).
    public var host: String
    /// gpsd's TCP port. Default 2947. One outside 0–65535 fails each connection attempt with an error saying
    /// so, until the source gives up.
    public var port: Int
    /// Reconnection, answer timeout and when to give up.
    public var reconnect: ReconnectPolicy
    /// How long one connect may take. Default 5 s.
    public var connectTimeout: Duration
    /// The longest JSON line kept; longer ones are dropped and counted. Default 64 KiB (gpsd's own
    /// reports stay under 10 KiB); 1 byte to 1 MiB (``longestLine``; outside that range the nearest), so that
    /// a peer that never ends its line holds no more than that.
    public var maximumLineLength: Int {
        didSet { maximumLineLength = Self.bounded(maximumLineLength) }
    }
    /// The largest ``maximumLineLength`` taken: 1 MiB, a hundred times gpsd's largest report.
    public static let longestLine = 1 << 20
    /// What to do with a fix whose receiver reported no error estimate at all (see <doc:ErrorEstimates>):
    /// by default (``UnmeasuredAccuracy/typical``) it is delivered with a radius assumed from its fix
    /// mode and marked as estimated; ``UnmeasuredAccuracy/skip`` skips and counts it.
    public var unmeasuredAccuracy: UnmeasuredAccuracy
    /// Power commands for the receiver, sent through gpsd (see ``GPSDReceiverControl``); `nil` (the default)
    /// sends none: the receiver stays powered while gpsd holds it, and gpsd closes it 60 s after its last client.
    public var receiverControl: GPSDReceiverControl?

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1",
        port: Int = 2947,
        reconnect: ReconnectPolicy = ReconnectPolicy(),
        connectTimeout: Duration = .seconds(5),
        maximumLineLength: Int = 64 * 1024,
        unmeasuredAccuracy: UnmeasuredAccuracy = .typical,
        receiverControl: GPSDReceiverControl? = nil
    ) {
        self.host = host
        self.port = port
        self.reconnect = reconnect
        self.connectTimeout = connectTimeout
        self.maximumLineLength = Self.bounded(maximumLineLength)
        self.unmeasuredAccuracy = unmeasuredAccuracy
        self.receiverControl = receiverControl
    }

    private static func bounded(_ length: Int) -> Int { min(max(1, length), longestLine) }

    /// `HOST:PORT`, with an IPv6 host in brackets.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
