import Foundation
import LocationEngine

/// Which receiver is on the other end of an NMEA stream, and so which power commands it takes.
public enum ReceiverModel: String, Sendable, Hashable, CaseIterable {
    /// A receiver that takes no command (or one this package does not speak): ``NMEAStreamSource/stop()``
    /// closes the port and the receiver stays powered, tracking at full current. Nothing is ever written.
    case plain
    /// A MediaTek chipset (MT3329/MT3339: Quectel L76/L80, GlobalTop PA6H, Adafruit Ultimate GPS…), commanded
    /// with PMTK packets.
    case mediatek
    /// A u-blox receiver (M8, and 9/10 through configuration keys), commanded with UBX frames.
    case ublox
    /// Ask the receiver: a MediaTek firmware query and a u-blox version poll are sent when the port opens;
    /// the one that is answered decides, and a receiver that answers neither is treated as ``plain``.
    case autodetect
}

/// How the receiver is attached, which decides how it can sleep (see <doc:ReceiverPower>).
public enum ReceiverConnection: String, Sendable, Hashable, CaseIterable {
    /// A UART: directly (a board's serial pins), through a USB-to-serial bridge (`/dev/ttyUSB…`), or over TCP. A
    /// u-blox backs up (RXM-PMREQ) and wakes on a byte.
    case uart
    /// The receiver's own USB port (`/dev/ttyACM…`). A forced backup would disable USB — the device vanishes
    /// until it is unplugged — and an unforced one is vetoed while USB is connected, so a u-blox waits in the
    /// power save of the lowest mode instead (acknowledged; it stays on the bus).
    case nativeUSB = "native-usb"

    /// The connection a serial device's path suggests, links resolved (`/dev/serial/by-id/usb-u-blox_…` names a
    /// `ttyACM` device): USB CDC-ACM devices — Linux's `ttyACM…`, macOS's `cu.usbmodem…`/`tty.usbmodem…` — are a
    /// receiver's own USB; anything else is a UART.
    public static func of(devicePath path: String) -> ReceiverConnection {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        let name = resolved.split(separator: "/").last.map(String.init) ?? resolved
        let native = name.hasPrefix("ttyACM") || name.hasPrefix("cu.usbmodem") || name.hasPrefix("tty.usbmodem")
        return native ? .nativeUSB : .uart
    }
}

/// How an ``NMEAStreamSource`` commands its receiver's power (see <doc:ReceiverPower>).
public struct ReceiverControlConfiguration: Sendable, Hashable {
    /// The receiver. Default ``ReceiverModel/plain``: nothing is written to the receiver.
    public var model: ReceiverModel
    /// The fix interval in the tracking modes (`PowerMode.best` and `PowerMode.high`), from 100 ms to 10 s,
    /// the receivers' range (a value outside is taken as the nearest). Default 1 s.
    public var fixInterval: Duration {
        didSet { fixInterval = Self.bounded(fixInterval: fixInterval) }
    }
    /// How long a command's acknowledgement may take before the command counts as unanswered, at least 10 ms.
    /// Default 1.5 s (u-blox answers "at least within one second"; MediaTek within one fix interval).
    public var acknowledgementTimeout: Duration {
        didSet { acknowledgementTimeout = Self.bounded(timeout: acknowledgementTimeout) }
    }
    /// How long the receiver may take to answer the version query when the port opens (twice: the first
    /// bytes may only wake it), at least 10 ms. Default 2 s.
    public var identificationTimeout: Duration {
        didSet { identificationTimeout = Self.bounded(timeout: identificationTimeout) }
    }
    /// How the receiver is attached; `nil` (the default): from the serial device's path
    /// (``ReceiverConnection/of(devicePath:)``), a UART over TCP.
    public var connection: ReceiverConnection?

    /// Creates a configuration.
    public init(
        model: ReceiverModel = .plain, fixInterval: Duration = .seconds(1),
        acknowledgementTimeout: Duration = .milliseconds(1500), identificationTimeout: Duration = .seconds(2),
        connection: ReceiverConnection? = nil
    ) {
        self.connection = connection
        self.model = model
        self.fixInterval = Self.bounded(fixInterval: fixInterval)
        self.acknowledgementTimeout = Self.bounded(timeout: acknowledgementTimeout)
        self.identificationTimeout = Self.bounded(timeout: identificationTimeout)
    }

    /// A fix interval the receivers take: from 100 ms to 10 s (MediaTek's `PMTK220` range; u-blox's
    /// measurement rate is a 16-bit count of milliseconds), whenever it is set.
    static func bounded(fixInterval: Duration) -> Duration { max(.milliseconds(100), min(fixInterval, .seconds(10))) }

    /// A timeout of at least 10 ms, whenever it is set.
    private static func bounded(timeout: Duration) -> Duration { max(.milliseconds(10), timeout) }

    /// The interval between fixes the power-save modes ask for, by engine mode (`nil`: continuous tracking).
    ///
    /// | mode | receiver |
    /// |---|---|
    /// | best, high | continuous tracking at ``fixInterval`` |
    /// | medium | power save / periodic, a fix every 5 s |
    /// | low | a fix every 20 s |
    /// | lowest | a fix every 60 s |
    public static func powerSaveInterval(for mode: PowerMode) -> Duration? {
        switch mode {
        case .best, .high: nil
        case .medium: .seconds(5)
        case .low: .seconds(20)
        case .lowest: .seconds(60)
        }
    }
}
