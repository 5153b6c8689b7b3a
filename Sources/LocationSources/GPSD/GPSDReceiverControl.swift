import LocationEngine
import NIOCore

/// Opt-in power commands for the receiver behind gpsd, sent through gpsd's own device channel.
///
/// gpsd never sends power commands itself: gpsd 3.22 keeps the device open for 60 s after its last client
/// leaves (`RELEASE_TIMEOUT`), then runs the driver's deactivate hook (a no-op for u-blox and MediaTek) and
/// closes the port, so the receiver stays powered and tracking. With this enabled, the gpsd source writes the
/// same commands the NMEA drivers send (see <doc:ReceiverPower>) as `?DEVICE={"path":…,"hexdata":…}` requests,
/// which gpsd (built with reconfiguration, the default) writes to the device unchanged — the mechanism
/// `ubxtool` and `gpsctl` use. gpsd consumes the receiver's replies, so the commands are not confirmed;
/// gpsd's `ERROR` answers are logged and counted.
///
/// gpsd shares its receiver: with this on, the engine puts it to sleep whenever the engine needs no fix, even
/// while other programs — a time server reading gpsd's shared memory, most often — depend on it. Turn it on
/// only when the engine is the receiver's one user.
public struct GPSDReceiverControl: Sendable, Hashable {
    /// The device as gpsd names it (its `?DEVICES` path), e.g. `/dev/ttyUSB0`.
    public var devicePath: String
    /// The receiver: ``ReceiverModel/mediatek`` or ``ReceiverModel/ublox`` (the others send nothing).
    public var model: ReceiverModel
    /// For a u-blox 9 or 10: configure it with CFG-VALSET keys rather than the M8's CFG messages.
    public var usesConfigurationKeys: Bool
    /// The fix interval in the tracking modes, from 100 ms to 10 s (a value outside is taken as the nearest).
    /// Default 1 s.
    public var fixInterval: Duration {
        didSet { fixInterval = ReceiverControlConfiguration.bounded(fixInterval: fixInterval) }
    }
    /// For a u-blox M8 or older: its UBX protocol version (`PROTVER` in MON-VER, `ubxtool -p MON-VER` shows it),
    /// which decides the CFG-PM2 layout: 48 bytes from 18 on, 44 before. gpsd keeps the receiver's answers, so
    /// it is not asked. Default 18 (M8 firmware 3.01 and later).
    public var protocolVersion: Double
    /// How the receiver is attached; `nil` (the default): from ``devicePath`` (``ReceiverConnection/of(devicePath:)``),
    /// so a network device gpsd reads (`tcp://bridge:4000`) is a UART. Set ``ReceiverConnection/nativeUSB`` for a
    /// u-blox whose own USB port is behind a serial-to-network bridge (ser2net on a `/dev/ttyACM…`).
    public var connection: ReceiverConnection?

    /// Creates the settings.
    public init(
        devicePath: String, model: ReceiverModel, usesConfigurationKeys: Bool = false, fixInterval: Duration = .seconds(1),
        protocolVersion: Double = 18, connection: ReceiverConnection? = nil
    ) {
        self.devicePath = devicePath
        self.connection = connection
        self.model = model
        self.usesConfigurationKeys = usesConfigurationKeys
        self.protocolVersion = protocolVersion
        self.fixInterval = ReceiverControlConfiguration.bounded(fixInterval: fixInterval)
    }

    private var dialect: ReceiverDialect? {
        switch model {
        case .mediatek: .mediatek
        case .ublox: usesConfigurationKeys ? .ubloxKeys : .ubloxLegacy(pm2Version2: protocolVersion >= 18)
        case .plain, .autodetect: nil
        }
    }

    /// The requests that wake the receiver and set it up for `mode`, one `?DEVICE` line per command.
    func wakeAndSetUp(_ mode: PowerMode) -> [ByteBuffer] {
        guard dialect != nil else { return [] }
        return [request(ReceiverDialect.identify(model).bytes)] + setUp(mode)
    }

    /// The requests that set the receiver up for `mode`.
    func setUp(_ mode: PowerMode) -> [ByteBuffer] {
        guard let dialect else { return [] }
        return dialect.commands(for: ReceiverProfile(mode: mode, fixInterval: fixInterval)).map { request($0.bytes) }
    }

    /// How the receiver is attached: as configured, else from the device path.
    var resolvedConnection: ReceiverConnection { connection ?? .of(devicePath: devicePath) }

    /// The requests that put the receiver in the idle state the engine chose: standby (MediaTek) or backup
    /// (u-blox) for standby and off — for a u-blox on its own USB port (``resolvedConnection``), the power save
    /// of the lowest mode — none for `on` (see ``NMEAStreamSource/stop(into:)``).
    func sleep(into idle: ReceiverPowerProfile.IdleState) -> [ByteBuffer] {
        dialect?.sleep(into: idle, over: resolvedConnection).map { request($0.bytes) } ?? []
    }

    /// `?DEVICE={"path":"…","hexdata":"…"}` for `bytes`.
    func request(_ bytes: [UInt8]) -> ByteBuffer {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        let path = devicePath.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return ByteBuffer(string: "?DEVICE={\"path\":\"\(path)\",\"hexdata\":\"\(String(decoding: hex, as: UTF8.self))\"}\n")
    }
}
