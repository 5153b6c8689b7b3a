/// One provider of fixes that the engine multiplexes among its requests: a GPS behind gpsd, an NMEA
/// stream, the synthetic receiver, or a scripted source in tests.
///
/// The engine calls ``start(mode:events:)`` when the first request that needs fixes arrives,
/// ``setMode(_:)`` whenever the cheapest sufficient mode changes, and ``stop()`` when no request
/// needs fixes any more (after the configured linger). These calls are made in that order, one at a
/// time, from the engine's isolation; they must return promptly and do their I/O asynchronously,
/// reporting through the ``SourceEventSink`` they were given. Events sent after ``stop()`` are ignored.
public protocol LocationSource: Sendable {
    /// What the source can provide.
    var capabilities: SourceCapabilities { get }

    /// Power the source up in `mode` and report to `events` until ``stop()``.
    func start(mode: PowerMode, events: SourceEventSink)

    /// Change the power mode of a running source.
    func setMode(_ mode: PowerMode)

    /// Power the source down and release the device. Idempotent.
    func stop()

    /// Power the source down into `state` (``ReceiverPowerProfile/IdleState/standby`` keeps a hot start,
    /// ``ReceiverPowerProfile/IdleState/off`` draws the least), as the engine's restart-aware policy decided for
    /// a source that describes its receiver (``SourceCapabilities/powerProfile``). It may come again, with a
    /// deeper state, while the source is stopped. The default calls ``stop()``.
    func stop(into state: ReceiverPowerProfile.IdleState)

    /// The source's own lifetime, for a source that keeps something between its starts (a worker thread, a
    /// connection): the engine calls it once, as a child of its own ``LocationEngine/run()``, and cancels it
    /// once it has shut down and stopped its sources; it returns when what it kept is released. Starts may come
    /// before it begins. The default returns at once: most sources need no lifetime beyond their starts.
    func run() async
}

extension LocationSource {
    /// Calls ``stop()``: a source that knows one way down takes it whatever the state.
    public func stop(into state: ReceiverPowerProfile.IdleState) { stop() }

    /// Returns at once: the source keeps nothing between its starts.
    public func run() async {}
}

/// What a ``LocationSource`` can provide.
public struct SourceCapabilities: Sendable, Hashable {
    /// Whether fixes carry a course over ground, so heading/course subscriptions can be served.
    public var providesCourse: Bool
    /// What the source's receiver costs in each state and how long it takes to come back, if the source knows:
    /// with it the engine powers down by the break-even of a restart (see <doc:PowerPolicy>); without it (`nil`,
    /// the default) by the fixed ``LocationEngineConfiguration/linger``.
    public var powerProfile: ReceiverPowerProfile?
    /// Whether the engine counts only the receiver states the source reports as confirmed
    /// (``SourceEventSink/receiverState(_:age:)``): its energy figure (``SchedulerStatistics/receiverEnergy``) then
    /// costs a state not confirmed as the dearest it could be, and its power-down plan goes on from where the
    /// receiver really waits. A source that can confirm reports after each command; one that cannot confirm
    /// anything but must not be taken at its word (gpsd keeps the receiver's replies) declares it and reports
    /// nothing, so its receiver is costed as tracking. Without it (the default), each command is taken to have
    /// worked.
    public var confirmsReceiverState: Bool
    /// The horizontal accuracy (metres, 68 %) the source typically reaches in its finest mode: 0 (the default)
    /// for a source as fine as any request asks (a GNSS receiver), kilometres for one that locates by
    /// Wi-Fi, cell or IP. With several sources the engine runs, for each request, one that reaches what it
    /// asks (see <doc:SeveralSources>). What is not a finite number above 0 counts as 0.
    public var reach: Double {
        didSet { reach = Self.bounded(reach: reach) }
    }
    /// What the source typically reaches when run in a mode, where that differs from ``reach`` (GeoClue at
    /// city level locates by IP, at street level by Wi-Fi): metres by mode, bounded as ``reach`` is.
    public var reachByMode: [PowerMode: Double] {
        didSet { reachByMode = reachByMode.mapValues(Self.bounded(reach:)) }
    }
    /// What running the source costs, for the engine's choice among several: by default its receiver's
    /// tracking power in the finest mode (``powerProfile``, which is in milliwatts); without a profile, ``SourceCost/typicalGNSS`` for a
    /// source that reaches any accuracy (a receiver that does not describe itself) and nothing for a coarser one.
    public var cost: SourceCost
    /// How long the source may take from a cold start to its first fix: by default its receiver's
    /// (``powerProfile``), else nothing. With several sources the engine starts a fallback beside a source that
    /// never gave a fix only once it has had this long, and ``LocationEngineConfiguration/fallbackAfter`` more —
    /// a GNSS receiver starting cold is not indoors — and, between two sources alike in cost, runs the quicker.
    /// At most ``longestFirstFix``.
    public var firstFixTime: Duration {
        didSet { firstFixTime = Self.bounded(firstFixTime) }
    }
    /// How soon the source's first fix typically comes in each mode once its receiver can fix: after a hot
    /// start, or a change into the mode (a duty-cycled mode whose run window comes first answers within its
    /// time to first fix; one that sleeps first answers after its period). The engine takes it as a prior and
    /// then judges the source by what it delivers: while one-shots wait it runs a mode expected to answer
    /// within 5 s (or within a second of the quickest), and a mode that stays silent past twice this (at least 2 s) is passed over for a while — the
    /// finest mode not known silent runs instead, and with several sources the fallback starts at once (see
    /// <doc:PowerPolicy>). Empty (the default): the source is not judged and runs as demanded. Each at most
    /// ``longestFirstFix``.
    public var firstFixByMode: [PowerMode: Duration] {
        didSet { firstFixByMode = firstFixByMode.mapValues(Self.bounded) }
    }

    /// The longest first-fix time taken: a day (a receiver downloading its almanac takes 12.5 minutes). A
    /// longer one is taken as a day, so that the engine's sums of instants and waits stay exact.
    public static let longestFirstFix = Duration.seconds(86_400)

    /// Creates a capability set.
    public init(
        providesCourse: Bool, powerProfile: ReceiverPowerProfile? = nil, confirmsReceiverState: Bool = false, reach: Double = 0,
        cost: SourceCost? = nil, firstFixTime: Duration? = nil, reachByMode: [PowerMode: Double] = [:],
        firstFixByMode: [PowerMode: Duration] = [:]
    ) {
        self.firstFixByMode = firstFixByMode.mapValues(Self.bounded)
        self.providesCourse = providesCourse
        self.powerProfile = powerProfile
        self.confirmsReceiverState = confirmsReceiverState
        self.reach = Self.bounded(reach: reach)
        self.reachByMode = reachByMode.mapValues(Self.bounded(reach:))
        // A profile whose tracking power is no usable number (NaN, infinite, not positive) describes a
        // receiver all the same: it costs as a typical one, never nothing.
        self.cost = cost ?? powerProfile.map { profile in
            let watts = profile.trackingPower(.best) / 1000
            return watts.isFinite && watts > 0 ? SourceCost(watts: watts) : .typicalGNSS
        } ?? (self.reach == 0 ? .typicalGNSS : SourceCost(watts: 0))
        self.firstFixTime = Self.bounded(firstFixTime ?? powerProfile?.timeToFirstFix[.cold] ?? .zero)
    }

    /// `time` within zero and ``longestFirstFix``.
    private static func bounded(_ time: Duration) -> Duration { min(max(.zero, time), longestFirstFix) }

    /// `reach` if it is a finite number above 0, else 0.
    private static func bounded(reach: Double) -> Double { reach.isFinite && reach > 0 ? reach : 0 }

    /// What the source typically reaches run in `mode`: ``reachByMode``'s, else ``reach``.
    public func reach(in mode: PowerMode) -> Double { reachByMode[mode] ?? reach }

    /// Whether the source's fixes, run in `mode`, can serve what `mode` asks: its reach in it is within the
    /// mode's target accuracy (for ``PowerMode/best``, within ``PowerMode/high``'s).
    public func serves(_ mode: PowerMode) -> Bool {
        reach(in: mode) <= (mode == .best ? PowerMode.high : mode).targetAccuracy
    }

    /// The finest mode the source serves, or ``PowerMode/lowest`` when it serves none.
    var finestServedMode: PowerMode { PowerMode.allCases.reversed().first(where: serves) ?? .lowest }
}

/// What running a source costs, in watts: a receiver's tracking power, or a network source's energy per
/// fix at the rate it reports (`joulesPerFix × fixesPerSecond`). The engine compares costs only with one
/// another.
public struct SourceCost: Sendable, Hashable, Comparable {
    /// Watts while the source runs.
    public var watts: Double {
        didSet { watts = Self.bounded(watts: watts) }
    }

    /// A cost of `watts` while running (negative or not finite: 0).
    public init(watts: Double) { self.watts = Self.bounded(watts: watts) }

    /// `watts` if it is a finite number above 0, else 0.
    private static func bounded(watts: Double) -> Double { watts.isFinite && watts > 0 ? watts : 0 }

    /// A GNSS receiver tracking continuously, for one that does not describe its power: 0.1 W (a MediaTek
    /// MT3339 draws about 25 mA at 3.3 V).
    public static let typicalGNSS = SourceCost(watts: 0.1)

    /// A cost of `joules` per fix at `fixesPerSecond`.
    public static func perFix(joules: Double, fixesPerSecond: Double = 1) -> SourceCost { SourceCost(watts: joules * fixesPerSecond) }

    public static func < (lhs: SourceCost, rhs: SourceCost) -> Bool { lhs.watts < rhs.watts }
}

/// An error a ``LocationSource`` reports.
///
/// A *transient* error (no fix right now, a reconnect in progress) leaves one-shot requests waiting for
/// their timeouts and subscriptions running; a *fatal* error (the source is gone for good) ends every
/// request with ``LocationStatus/failed(_:)``.
public struct SourceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A short machine-readable identifier, e.g. `"gpsd.disconnected"` or `"nmea.noFix"`.
    public var code: String
    /// What happened and, where useful, what to do about it.
    public var message: String

    /// Creates an error.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

/// What a source reports.
public enum SourceEvent: Sendable {
    /// A new fix, `age` old at the moment it is reported (zero for a live fix; older for a cached one).
    case location(Location, age: Duration)
    /// A temporary failure; requests keep waiting.
    case transientError(SourceError)
    /// The source is gone for good; every active request ends with an error.
    case fatalError(SourceError)
    /// Where the receiver confirmed it is, after the engine's last command: ``ReceiverPowerProfile/IdleState/on``
    /// when it tracks — or when the source cannot tell (a command refused or unanswered, a port closed with
    /// the receiver left as it was) — ``ReceiverPowerProfile/IdleState/standby`` or
    /// ``ReceiverPowerProfile/IdleState/off`` once it confirmed that. Taken also after a stop, from the
    /// source's last session (the confirmation of a power-down comes after it). `age`: how long the receiver
    /// has been there by the evidence (silent since the command, though its answer came late); the engine
    /// costs that stretch, back to the power-down at most, at the confirmed state.
    case receiverState(ReceiverPowerProfile.IdleState, age: Duration = .zero)
    /// The running receiver confirmed that it tracks in the setting of `mode` (the commands the source sends
    /// for it were acknowledged): until a source that confirms its receiver's state
    /// (``SourceCapabilities/confirmsReceiverState``) reports this after a start or a change of mode, the
    /// engine costs the receiver at the dearer of the mode asked for and the setting last confirmed. A source
    /// whose command was refused reports nothing, or the setting the receiver kept. `age`: how long ago the
    /// receiver took the setting — an acknowledgement, in time or late, answers a command applied when it was
    /// received — the engine costs that stretch (back to its last change at most) at the confirmed setting, and
    /// takes a setting taken before its last command for the answer to an earlier one, not a refusal.
    case receiverTracking(PowerMode, age: Duration = .zero)
}

/// Where a running ``LocationSource`` sends its events. Cheap to copy; safe to call from any thread.
public struct SourceEventSink: Sendable {
    @usableFromInline let deliver: @Sendable (SourceEvent) -> Void

    /// Creates a sink that forwards every event to `deliver`. The engine makes these; tests and
    /// adapters may too.
    public init(_ deliver: @escaping @Sendable (SourceEvent) -> Void) {
        self.deliver = deliver
    }

    /// Reports a new fix that was `age` old when it was reported.
    @inlinable public func location(_ location: Location, age: Duration = .zero) {
        deliver(.location(location, age: age))
    }

    /// Reports a temporary failure.
    @inlinable public func transientError(_ error: SourceError) { deliver(.transientError(error)) }

    /// Reports that the source is gone for good.
    @inlinable public func fatalError(_ error: SourceError) { deliver(.fatalError(error)) }

    /// Reports where the receiver confirmed it is (see ``SourceEvent/receiverState(_:age:)``).
    @inlinable public func receiverState(_ state: ReceiverPowerProfile.IdleState, age: Duration = .zero) {
        deliver(.receiverState(state, age: age))
    }

    /// Reports that the running receiver confirmed the setting of `mode` (see ``SourceEvent/receiverTracking(_:age:)``).
    @inlinable public func receiverTracking(_ mode: PowerMode, age: Duration = .zero) { deliver(.receiverTracking(mode, age: age)) }

    /// Reports any event.
    @inlinable public func send(_ event: SourceEvent) { deliver(event) }
}
