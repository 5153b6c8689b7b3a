import LocationEngine

/// What the receiver is doing, as far as its driver knows.
public enum ReceiverPowerState: String, Sendable, Hashable {
    /// Not known yet (the port just opened, or the receiver is plain).
    case unknown
    /// Tracking continuously.
    case tracking
    /// In a power-save or periodic mode.
    case powerSave = "power_save"
    /// In standby: output stopped, woken by any byte with a hot start (MediaTek).
    case standby
    /// In backup: only the real-time clock and backup RAM powered, woken by a byte on UART RX (u-blox).
    case backup
    /// The port is closed and the receiver was left as it was (a plain receiver, or a fallback).
    case released
}

/// The receiver a driver identified.
public enum ReceiverVendor: Sendable, Hashable, CustomStringConvertible {
    /// A MediaTek receiver and its firmware release (`$PMTK705`), empty when it acknowledged without saying.
    case mediatek(release: String)
    /// A u-blox receiver, its software version and protocol version (`UBX-MON-VER`: its `PROTVER`, or when it lists
    /// none, what its hardware version says; `nil` when neither tells).
    case ublox(software: String, protocolVersion: Double?)

    public var description: String {
        switch self {
        case .mediatek(let release): release.isEmpty ? "MediaTek" : "MediaTek \(release)"
        case .ublox(let software, let protocolVersion):
            "u-blox \(software)" + (protocolVersion.map { " (protocol \($0))" } ?? "")
        }
    }
}

/// What an ``NMEAStreamSource``'s receiver driver did, since the source was created.
public struct ReceiverControlStatistics: Sendable, Hashable {
    /// The receiver identified on the current (or last) link; `nil` when it is plain or not identified yet.
    public var vendor: ReceiverVendor?
    /// What the receiver is doing, as far as the driver knows.
    public var state: ReceiverPowerState = .unknown
    /// The engine's mode whose setting the running receiver confirmed (by its acknowledgement, or by its output
    /// after an answer was lost); `nil` while none is confirmed on the link.
    public var confirmedMode: PowerMode?
    /// Whether the receiver confirmed the sleep it was last sent to.
    public var sleepConfirmed = false
    /// Commands written to the receiver.
    public var commandsSent = 0
    /// Commands queued or in flight now: while there are any, the state above may still change by what the
    /// driver has sent (a setting the receiver has taken but not yet acknowledged).
    public var commandsWaiting = 0
    /// Commands acknowledged, or confirmed by the receiver falling silent (standby, backup).
    public var commandsConfirmed = 0
    /// Commands refused (UBX-ACK-NAK, or a `$PMTK001` flag other than 3).
    public var commandsRefused = 0
    /// Commands that got no answer within ``ReceiverControlConfiguration/acknowledgementTimeout``.
    public var commandsUnanswered = 0
    /// Of those, commands whose acknowledgement came after all: they took effect, and the driver's state
    /// followed.
    public var commandsAcknowledgedLate = 0
    /// Commands whose answer arrived garbled (bad checksum).
    public var commandsGarbled = 0
    /// Commands in flight when the link was lost (the receiver unplugged).
    public var commandsLostWithLink = 0
    /// Sleeps confirmed only by the output stopping (u-blox backup) that a start gave up on before their deadline.
    public var commandsSuperseded = 0
    /// The last configuration error (a receiver that does not answer as the configured model).
    public var lastError: ReceiverControlError?

    /// Creates zeroed counters.
    public init() {}
}

/// A receiver that does not behave as configured.
public struct ReceiverControlError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case noAnswer(ReceiverModel)
        case mismatch(configured: ReceiverModel, observed: ReceiverModel)
    }

    private let code: Code

    /// The receiver did not answer the version query of the configured `model`.
    public static func noAnswer(_ model: ReceiverModel) -> Self { Self(code: .noAnswer(model)) }
    /// The receiver answered as `observed`, not as the `configured` model.
    public static func mismatch(configured: ReceiverModel, observed: ReceiverModel) -> Self {
        Self(code: .mismatch(configured: configured, observed: observed))
    }

    public var description: String {
        switch code {
        case .noAnswer(let model):
            "the receiver did not answer the \(model) version query; it is treated as plain (it stays powered when stopped). "
                + "Check the model in ReceiverControlConfiguration, or use .autodetect"
        case .mismatch(let configured, let observed):
            "the receiver answers as \(observed), but \(configured) is configured; it is treated as plain (it stays powered "
                + "when stopped). Configure .\(observed) or .autodetect"
        }
    }
}
