import LocationEngine

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
    /// What GeoClue typically reaches on this machine, for an engine with several sources
    /// (`SourceCapabilities.reach`): by default 1 km, the city and neighbourhood requests a Wi-Fi or IP
    /// position serves; 0 where GeoClue has a GNSS of its own (a modem's GPS, network NMEA).
    public var reach: Double
    /// What GeoClue reaches at the level a mode asks for, where that differs from ``reach``
    /// (`SourceCapabilities.reachByMode`): for instance `[.medium: 50]` where its Wi-Fi locates to the street.
    public var reachByMode: [PowerMode: Double] = [:]
    /// What running GeoClue costs, watts, for the same choice: by default 0.02 W, a Wi-Fi scan now and then.
    public var watts: Double

    /// A configuration for the application `desktopId`.
    public init(
        desktopId: String, busAddress: String? = nil, distanceThreshold: UInt32 = 0, timeThreshold: UInt32 = 0,
        callTimeout: Duration = .seconds(5), retryDelay: Duration = .milliseconds(250), maximumRetryDelay: Duration = .seconds(4),
        accuracyWhenUnknown: Double = 50, reach: Double = 1000, watts: Double = 0.02
    ) {
        self.desktopId = desktopId
        self.busAddress = busAddress
        self.distanceThreshold = distanceThreshold
        self.timeThreshold = timeThreshold
        self.callTimeout = max(.milliseconds(10), callTimeout)
        self.retryDelay = max(.milliseconds(10), retryDelay)
        self.maximumRetryDelay = max(self.retryDelay, maximumRetryDelay)
        self.accuracyWhenUnknown = accuracyWhenUnknown.isFinite && accuracyWhenUnknown > 0 ? accuracyWhenUnknown : 50
        self.reach = reach.isFinite && reach > 0 ? reach : 0
        self.watts = watts.isFinite && watts > 0 ? watts : 0
    }
}
