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
    /// How long a call to GeoClue or the bus may take, the connection's authentication and `Hello` included.
    /// `GetClient` is answered only once an agent has authorized the application: past this the source reports
    /// that it waits for an agent (`geoclue.agent`) and asks again. At least 10 ms.
    public var callTimeout: Duration {
        didSet { callTimeout = Self.bounded(delay: callTimeout) }
    }
    /// The first pause before connecting again after the bus failed, at least 10 ms; it doubles up to
    /// ``maximumRetryDelay``.
    public var retryDelay: Duration {
        didSet {
            retryDelay = Self.bounded(delay: retryDelay)
            maximumRetryDelay = max(retryDelay, maximumRetryDelay)
        }
    }
    /// The longest pause between two attempts to connect, at least ``retryDelay``.
    public var maximumRetryDelay: Duration {
        didSet { maximumRetryDelay = max(retryDelay, maximumRetryDelay) }
    }
    /// What GeoClue's reported accuracies mean, where they are classes rather than estimates: a fix GeoClue
    /// reports with one of these accuracies gets the radius it maps to, marked as estimated. By default
    /// ``nmeaAccuracyClasses``: GeoClue's NMEA source reports its HDOP as a class (0, 1, 3, 50, 100 or 300),
    /// not metres. A class left out is taken at its word, and so is one mapped to a radius that is not a finite
    /// number above 0.
    public var accuracyClasses: [Double: Double] {
        didSet { accuracyClasses = Self.usable(accuracyClasses) }
    }
    /// How soon GeoClue typically answers at any level once started: the engine's prior, after which a level
    /// that stays silent (twice this, at least 2 s) is passed over for GeoClue's exact level — GeoClue whose only
    /// source is NMEA answers at exact and never at city — and, beside a receiver, the receiver starts too.
    /// A negative one counts as 0.
    public var firstFixTime: Duration {
        didSet { firstFixTime = max(.zero, firstFixTime) }
    }

    /// GeoClue's NMEA accuracy classes as honest radii (metres, 68 %): GeoClue turns the HDOP of each fix into
    /// 0 (HDOP ≤ 1), 1 (≤ 2), 3 (≤ 5), 50 (≤ 10), 100 (≤ 20) or 300 (more); each becomes the HDOP at its bound
    /// times a 7.5 m user range error — 7.5, 15, 37.5, 75 and 150 m, and 300 m for the last, unbounded one.
    /// None claims room accuracy (5 m): map a class finer yourself where a receiver earns it.
    public static let nmeaAccuracyClasses: [Double: Double] = [0: 7.5, 1: 15, 3: 37.5, 50: 75, 100: 150, 300: 300]
    /// What GeoClue typically reaches on this machine, for an engine with several sources
    /// (`SourceCapabilities.reach`): by default 1 km, the city and neighbourhood requests a Wi-Fi or IP
    /// position serves; 0 where GeoClue has a GNSS of its own (a modem's GPS, network NMEA). Metres; what is
    /// not a finite number above 0 counts as 0.
    public var reach: Double {
        didSet { reach = Self.nonNegative(reach) }
    }
    /// What GeoClue reaches at the level a mode asks for, where that differs from ``reach``
    /// (`SourceCapabilities.reachByMode`): for instance `[.medium: 50]` where its Wi-Fi locates to the street.
    public var reachByMode: [PowerMode: Double] = [:]
    /// What running GeoClue costs, watts, for the same choice: by default 0.02 W, a Wi-Fi scan now and then.
    /// What is not a finite number above 0 counts as 0.
    public var watts: Double {
        didSet { watts = Self.nonNegative(watts) }
    }

    /// A configuration for the application `desktopId`.
    public init(
        desktopId: String, busAddress: String? = nil, distanceThreshold: UInt32 = 0, timeThreshold: UInt32 = 0,
        callTimeout: Duration = .seconds(5), retryDelay: Duration = .milliseconds(250), maximumRetryDelay: Duration = .seconds(4),
        accuracyClasses: [Double: Double] = GeoClueConfiguration.nmeaAccuracyClasses, reach: Double = 1000, watts: Double = 0.02,
        firstFixTime: Duration = .seconds(2)
    ) {
        self.desktopId = desktopId
        self.busAddress = busAddress
        self.distanceThreshold = distanceThreshold
        self.timeThreshold = timeThreshold
        self.callTimeout = Self.bounded(delay: callTimeout)
        self.retryDelay = Self.bounded(delay: retryDelay)
        self.maximumRetryDelay = max(self.retryDelay, maximumRetryDelay)
        self.accuracyClasses = Self.usable(accuracyClasses)
        self.firstFixTime = max(.zero, firstFixTime)
        self.reach = Self.nonNegative(reach)
        self.watts = Self.nonNegative(watts)
    }

    // The same bounds whether a value comes through the initializer or is set later.
    private static func bounded(delay: Duration) -> Duration { max(.milliseconds(10), delay) }
    private static func nonNegative(_ value: Double) -> Double { value.isFinite && value > 0 ? value : 0 }
    private static func usable(_ classes: [Double: Double]) -> [Double: Double] {
        classes.filter { $0.key.isFinite && $0.value.isFinite && $0.value > 0 }
    }
}
