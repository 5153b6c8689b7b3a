/// How a ``GeoClueLocationSource`` talks to GeoClue.
public struct GeoClueConfiguration: Sendable, Hashable {
    /// The application's desktop ID (its `.desktop` file's name without the suffix). GeoClue requires one:
    /// its configuration (`/etc/geoclue/geoclue.conf`) and the user's agent decide by it whether the
    /// application may see the location.
    public var desktopId: String
    /// The bus's D-Bus address, or `nil` for the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, or the standard
    /// socket).
    public var busAddress: String?
    /// GeoClue's `DistanceThreshold`: metres a position must move before GeoClue reports it (0: every one).
    public var distanceThreshold: UInt32
    /// GeoClue's `TimeThreshold`: seconds that must pass between two reports (0: every one).
    public var timeThreshold: UInt32
    /// How long a call to GeoClue may take. `GetClient` is answered only once an agent has authorized the
    /// application: past this the source reports that it waits for an agent (`geoclue.agent`) and asks again.
    public var callTimeout: Duration
    /// The first pause before connecting again after the bus failed; it doubles up to ``maximumRetryDelay``.
    public var retryDelay: Duration
    /// The longest pause between two attempts to connect.
    public var maximumRetryDelay: Duration
    /// The horizontal accuracy (metres, 68 %) given to a fix GeoClue reports with accuracy 0 (unknown), marked
    /// as estimated.
    public var accuracyWhenUnknown: Double

    /// A configuration for the application `desktopId`.
    public init(
        desktopId: String, busAddress: String? = nil, distanceThreshold: UInt32 = 0, timeThreshold: UInt32 = 0,
        callTimeout: Duration = .seconds(5), retryDelay: Duration = .milliseconds(250), maximumRetryDelay: Duration = .seconds(4),
        accuracyWhenUnknown: Double = 50
    ) {
        self.desktopId = desktopId
        self.busAddress = busAddress
        self.distanceThreshold = distanceThreshold
        self.timeThreshold = timeThreshold
        self.callTimeout = max(.milliseconds(10), callTimeout)
        self.retryDelay = max(.milliseconds(10), retryDelay)
        self.maximumRetryDelay = max(self.retryDelay, maximumRetryDelay)
        self.accuracyWhenUnknown = accuracyWhenUnknown.isFinite && accuracyWhenUnknown > 0 ? accuracyWhenUnknown : 50
    }
}
