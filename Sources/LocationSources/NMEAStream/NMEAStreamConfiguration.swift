import NMEA

/// What an ``NMEAStreamSource`` reads and how.
public struct NMEAStreamConfiguration: Sendable, Hashable {
    /// Where the NMEA comes from.
    public var endpoint: NMEAStreamEndpoint
    /// Reconnection (TCP), reopening (serial device), answer timeout and when to give up.
    public var reconnect: ReconnectPolicy
    /// How long one TCP connect may take. Default 5 s.
    public var connectTimeout: Duration
    /// The longest NMEA line accepted by the decoder (see `NMEAStreamDecoder`), 16 to 65,535 bytes (outside
    /// that range the nearest; no longer sentence parses). Default 256.
    public var maximumLineLength: Int
    /// Which sentences may come without a checksum. Default `.standard`.
    public var checksumPolicy: NMEAChecksumPolicy
    /// What to do with a fix whose receiver reported no error estimate at all (see <doc:ErrorEstimates>):
    /// by default (``UnmeasuredAccuracy/typical``) it is delivered with a radius assumed from its fix
    /// mode and marked as estimated; ``UnmeasuredAccuracy/skip`` skips and counts it.
    public var unmeasuredAccuracy: UnmeasuredAccuracy
    /// Replay a file again from the start when it ends, rather than report its end: each pass after the last
    /// with no disconnection told, at once or, after a pass shorter than the reconnect policy's initial delay,
    /// when that much has passed since its first sentence was understood. Default `false`. Only a file replays:
    /// for other endpoints this is ignored (the end of standard input is final, whatever it says).
    public var loopsFile: Bool
    /// Whether and how the receiver's power is commanded (serial and TCP endpoints only; files and standard
    /// input are read-only). Default: a plain receiver, never written to (see <doc:ReceiverPower>).
    public var receiver: ReceiverControlConfiguration

    /// Creates a configuration for `endpoint`.
    public init(
        endpoint: NMEAStreamEndpoint,
        reconnect: ReconnectPolicy = ReconnectPolicy(),
        connectTimeout: Duration = .seconds(5),
        maximumLineLength: Int = 256,
        checksumPolicy: NMEAChecksumPolicy = .standard,
        unmeasuredAccuracy: UnmeasuredAccuracy = .typical,
        loopsFile: Bool = false,
        receiver: ReceiverControlConfiguration = ReceiverControlConfiguration()
    ) {
        self.endpoint = endpoint
        self.reconnect = reconnect
        self.connectTimeout = connectTimeout
        self.maximumLineLength = maximumLineLength
        self.checksumPolicy = checksumPolicy
        self.unmeasuredAccuracy = unmeasuredAccuracy
        self.loopsFile = loopsFile
        self.receiver = receiver
    }

    /// Whether the stream replays when it ends: ``loopsFile`` for a file endpoint, never for another.
    var replaysFile: Bool {
        if case .file = endpoint { loopsFile } else { false }
    }

    /// The receiver's control with its connection decided: as configured, else from the serial device's path
    /// (a TCP endpoint is a UART bridge).
    var resolvedReceiver: ReceiverControlConfiguration {
        var resolved = receiver
        if resolved.connection == nil, case .serial(let path, _) = endpoint { resolved.connection = .of(devicePath: path) }
        return resolved
    }

    /// Whether the source runs a receiver driver: a model other than plain on a serial or TCP endpoint.
    var commandsReceiver: Bool {
        switch endpoint {
        case .serial, .tcp: receiver.model != .plain
        case .file, .standardInput: false
        }
    }
}
