import Foundation
import LocationEngine
import Logging
import NIOConcurrencyHelpers

/// One run of a ``GeoClueLocationSource``, from a start to its stop, served on the source's worker thread
/// (``GeoClueWorker``), which owns the run's bus connection: it connects, waits for GeoClue, gets its client, configures and starts it, and turns
/// `LocationUpdated` signals into fixes, until stopped. It reconnects when the bus fails, waits when
/// GeoClue leaves the bus and gets a new client when it comes back (`NameOwnerChanged`), and asks again
/// while GeoClue waits for an agent. Requests keep waiting through all of it (transient errors); only a
/// denial ends them. Between messages the thread sleeps on the bus's socket and the worker's wake-up: a mode
/// change or a stop wakes it, nothing else does.
final class GeoClueSession: Sendable {
    /// What the engine asked of this run.
    private struct Control {
        var mode: PowerMode
        var stopped = false
    }

    /// Why serving stopped.
    private enum Trouble: Error {
        /// The bus failed or closed the connection: connect again after a pause.
        case bus(DBusFailure)
        /// GeoClue is not on the bus (it left, or never came): wait for its name. With the answer that said so,
        /// when a call was answered as if GeoClue or its client were not there; `nil` when its name left the bus.
        case vanished(DBusFailure?)
        /// GeoClue or its agent refused the application.
        case denied(DBusFailure)
        /// GeoClue answered with an error: ask again after a pause.
        case failed(DBusFailure)
        /// The connection holds as many unanswered calls as the bus should keep waiting for: connect again at once.
        case renew
        /// The engine stopped the source.
        case stopped
    }

    /// How many unanswered `GetClient` calls one connection asks before it is replaced. A call that times out here
    /// still waits in the bus (dbus-daemon keeps a reply pending for ever by default, and refuses a connection's
    /// 129th with `LimitsExceeded`); closing the connection drops them all.
    static let unansweredCallsPerConnection = 32

    static let service = "org.freedesktop.GeoClue2"
    private static let managerPath = "/org/freedesktop/GeoClue2/Manager"
    private static let clientInterface = "org.freedesktop.GeoClue2.Client"
    private static let properties = "org.freedesktop.DBus.Properties"

    private let control: NIOLockedValueBox<Control>
    private let configuration: GeoClueConfiguration
    private let events: SourceEventSink
    private let statistics: NIOLockedValueBox<GeoClueLocationSource.Statistics>
    private let authorization: GeoClueAuthorization?
    private let logger: Logger
    private let wallClock: @Sendable () -> Double
    /// The worker's wake-up, signalled whenever the engine asks something of this run or a connection attempt
    /// finishes.
    private let wake: WakeSignal
    /// Opens the run's bus connections (the worker's, for all its runs).
    private let connector: DBusConnector
    /// Each time the worker tells the engine something (a position, an error), from the check that the run
    /// still serves that level to the sink's return: a stop or a level change waits for it, so that nothing of
    /// this run, or of the level left, reaches the sink after either returns (a sink that stops the source or
    /// changes its level from inside one does not wait for itself).
    private let handOver = SinkHandOver()

    init(
        mode: PowerMode, wake: WakeSignal, connector: DBusConnector, configuration: GeoClueConfiguration, events: SourceEventSink,
        statistics: NIOLockedValueBox<GeoClueLocationSource.Statistics>, authorization: GeoClueAuthorization?, logger: Logger,
        wallClock: @escaping @Sendable () -> Double
    ) {
        control = NIOLockedValueBox(Control(mode: mode))
        self.wake = wake
        self.connector = connector
        self.configuration = configuration
        self.events = events
        self.statistics = statistics
        self.authorization = authorization
        self.logger = logger
        self.wallClock = wallClock
    }

    /// Asks the run to go on in `mode`: the worker wakes and restarts GeoClue's client at its level.
    func setMode(_ mode: PowerMode) {
        control.withLockedValue { $0.mode = mode }
        handOver.awaitIdle()
        wake.signal()
    }

    /// Ends the run: the worker wakes, stops GeoClue's client and closes the connection (at once, or after the
    /// call in progress, within its timeout); nothing is delivered after this returns (a delivery in progress is
    /// waited for).
    func stop() {
        control.withLockedValue { $0.stopped = true }
        handOver.awaitIdle()
        wake.signal()
    }

    /// Runs `deliver` unless the run is stopped, or (for a position) the engine asks another level than
    /// `level` (then the position is counted as the level left's). A stop or a level change that comes
    /// meanwhile waits for it to return.
    private func delivering(at level: GeoClueAccuracyLevel? = nil, _ deliver: () -> Void) {
        handOver.deliver {
            let (mode, stopped) = control.withLockedValue { ($0.mode, $0.stopped) }
            guard !stopped else { return }
            if let level, GeoClueAccuracyLevel(mode) != level { return droppedAsEarlierLevel() }
            deliver()
        }
    }

    var isStopped: Bool { control.withLockedValue { $0.stopped } }

    // MARK: The run, on the worker thread

    /// Serves the run until it is stopped or GeoClue denies access; called once, on the worker thread.
    func run() {
        var failures = 0
        // Refusals of the match rule in a row: each on a new connection, so not reset by connecting.
        var refusals = 0
        var reportedBusTrouble = false
        while !isStopped {
            let address = configuration.busAddress ?? DBusConnection.systemBusAddress
            do throws(Trouble) {
                let opened = try connect(address)
                let bus: DBusConnection
                do {
                    bus = try DBusConnection(opened, address: address, timeout: configuration.callTimeout)
                } catch {
                    throw Trouble.bus(error)
                }
                failures = 0
                reportedBusTrouble = false
                try serve(bus, refusals: &refusals)
            } catch .bus(let failure) {
                failures += 1
                if !reportedBusTrouble {
                    reportedBusTrouble = true
                    transient("geoclue.bus", "cannot use the system bus at \(address) (\(failure)); connecting again")
                }
                try? pause(retryDelay(afterFailures: failures))
            } catch .denied(let failure) {
                denied(failure)
                return
            } catch .renew {
                continue
            } catch .failed(let failure) {
                // The bus refused what the connection needs before any client (its match rule for GeoClue's
                // comings and goings: a limit, no memory): said, and tried again on a new connection.
                refusals += 1
                let delay = retryDelay(afterFailures: refusals)
                transient("geoclue.call", "the system bus refused to watch for GeoClue (\(failure)); connecting again in \(delay)")
                try? pause(delay)
            } catch {
                return  // stopped: the other troubles are handled while serving
            }
        }
    }

    /// Serves on one connection until the bus fails, GeoClue denies access, or the engine stops the source;
    /// `refusals` (of the match rule, in a row) is reset once the bus takes it.
    private func serve(_ bus: DBusConnection, refusals: inout Int) throws(Trouble) {
        try call { () throws(DBusFailure) in
            try bus.addMatch(
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.service)'",
                timeout: configuration.callTimeout)
        }
        refusals = 0
        var failures = 0
        // Calls answered as if GeoClue were not there, in a row, before a client started.
        var answeredGone = 0
        while true {
            var clientStarted = false
            do {
                let owner = try waitForGeoClue(bus)
                try runClient(bus, owner: owner, started: &clientStarted)
            } catch .vanished(let answer) {
                // Its name left the bus, or its client went after it ran: at once, to wait for GeoClue or ask anew.
                guard let answer, !clientStarted else {
                    answeredGone = 0
                    continue
                }
                // Answered gone while it owns its name: once more at once (it may have just left), then after a
                // growing pause, so that a GeoClue answering so for ever is not asked in a loop without end.
                answeredGone += 1
                guard answeredGone > 1 else { continue }
                let delay = retryDelay(afterFailures: answeredGone - 1)
                transient("geoclue.call", "GeoClue owns its name on the bus but answered \(answer); asking again in \(delay)")
                try pause(delay)
            } catch .failed(let failure) {
                failures += 1
                transient("geoclue.call", "GeoClue answered \(failure); asking again")
                try pause(retryDelay(afterFailures: failures))
            }
        }
    }

    /// Returns GeoClue's unique name on the bus once it owns its name: at once when it runs; else after asking
    /// the bus to start it (GeoClue is started on demand and leaves when idle); else says so once and waits
    /// for `NameOwnerChanged`.
    private func waitForGeoClue(_ bus: DBusConnection) throws(Trouble) -> String {
        if let owner = try owner(bus) { return owner }
        if try activate(bus), let owner = try owner(bus) { return owner }
        transient("geoclue.absent", "\(Self.service) is not on the system bus, and the bus could not start it: is GeoClue installed? Waiting for it to appear")
        while true {
            guard !isStopped else { throw .stopped }
            let signal = try nextSignal(bus)
            if let signal, case .appeared(let owner)? = Self.ownerChange(signal) { return owner }
        }
    }

    /// GeoClue's unique name on the bus, or `nil` when it is not there.
    private func owner(_ bus: DBusConnection) throws(Trouble) -> String? {
        let answer: [DBusValue]
        do throws(DBusFailure) {
            answer = try bus.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", [.string(Self.service)],
                timeout: configuration.callTimeout)
        } catch where error.name == DBusFailure.Name.nameHasNoOwner {
            return nil
        } catch {
            throw Self.classify(error)
        }
        guard case .string(let owner)? = answer.first, !owner.isEmpty else {
            throw .failed(DBusFailure(name: DBusFailure.Name.malformed, message: "GetNameOwner answered \(answer)"))
        }
        return owner
    }

    /// Asks the bus to start GeoClue (`StartServiceByName`, as a call to it would: a stock system starts
    /// GeoClue on demand, and GeoClue leaves after a minute without clients). Returns whether it runs now;
    /// `false` when the bus cannot start it (no service file, or not allowed), which is no error of GeoClue's.
    private func activate(_ bus: DBusConnection) throws(Trouble) -> Bool {
        do throws(DBusFailure) {
            _ = try bus.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "StartServiceByName",
                [.string(Self.service), .uint32(0)], timeout: configuration.callTimeout)
            statistics.withLockedValue { $0.activations += 1 }
            return true
        } catch {
            if case .bus = Self.classify(error) { throw .bus(error) }
            logger.debug("the bus did not start GeoClue", metadata: ["error": "\(error)"])
            return false
        }
    }

    private enum OwnerChange: Equatable {
        /// GeoClue took its name, under this unique name.
        case appeared(String)
        case vanished
    }

    /// What a `NameOwnerChanged` of the bus says of GeoClue's name (one from anyone but the bus is not news).
    private static func ownerChange(_ signal: DBusConnection.Signal) -> OwnerChange? {
        guard signal.sender == "org.freedesktop.DBus", signal.interface == "org.freedesktop.DBus", signal.member == "NameOwnerChanged",
            signal.arguments.count == 3, case .string(service) = signal.arguments[0], case .string(let owner) = signal.arguments[2]
        else { return nil }
        return owner.isEmpty ? .vanished : .appeared(owner)
    }

    /// The Location object a `LocationUpdated` of `client` names, when the signal is GeoClue's (sent by
    /// `owner`, its unique name: a signal sent straight to this connection by another peer is not) and
    /// names an object path; otherwise `nil`.
    static func locationPath(of signal: DBusConnection.Signal, client: String, owner: String) -> String? {
        guard signal.sender == owner, signal.interface == clientInterface, signal.member == "LocationUpdated", signal.path == client,
            signal.arguments.count == 2, case .objectPath(let path) = signal.arguments[1]
        else { return nil }
        return path
    }

    /// Gets, configures and starts GeoClue's client for this connection and delivers its locations until
    /// GeoClue leaves the bus (``Trouble/vanished``) or the engine stops the source; `started` once the client runs.
    private func runClient(_ bus: DBusConnection, owner: String, started: inout Bool) throws(Trouble) {
        let client = try getClient(bus)
        var level = GeoClueAccuracyLevel(control.withLockedValue { $0.mode })
        try configure(bus, client, level: level)
        // This client's signals only (GeoClue's go to every connection that matches: other applications' fixes
        // would wake the worker), and the rule taken out with the client, so that rules do not pile up across
        // GeoClue's restarts to the bus's limit (512 on dbus-daemon), after which no client could start.
        let rule = "type='signal',sender='\(Self.service)',path='\(client)',interface='\(Self.clientInterface)',member='LocationUpdated'"
        try call { () throws(DBusFailure) in try bus.addMatch(rule, timeout: configuration.callTimeout) }
        defer { bus.removeMatch(rule) }
        try start(bus, client, level: level)
        started = true
        logger.debug("GeoClue client started", metadata: ["client": "\(client)", "level": "\(level)"])
        // Each position read is handed over at the top of the loop, where the level the engine asks is read: if
        // the engine asked for another level meanwhile, the position is the level being left and is dropped (if
        // it asked and came back, it is still this level's, and GeoClue would not report it again).
        var read: ReadFix?
        while true {
            let (mode, stopped) = control.withLockedValue { ($0.mode, $0.stopped) }
            if stopped {
                _ = try? bus.call(Self.service, client, Self.clientInterface, "Stop", timeout: configuration.callTimeout)
                throw .stopped
            }
            let asked = GeoClueAccuracyLevel(mode)
            if let fix = read {
                read = nil
                handOver(fix, at: level)
            }
            if asked != level {
                // GeoClue takes a new level at the next start.
                level = asked
                try call { () throws(DBusFailure) in _ = try bus.call(Self.service, client, Self.clientInterface, "Stop", timeout: configuration.callTimeout) }
                try passOverEarlierLevel(bus, client: client, owner: owner)
                try setProperty(bus, client, "RequestedAccuracyLevel", .uint32(level.rawValue))
                try start(bus, client, level: level)
            }
            guard let signal = try nextSignal(bus) else { continue }
            try watch(signal, owner: owner)
            if let location = Self.locationPath(of: signal, client: client, owner: owner) {
                read = try self.read(location, from: bus, received: ContinuousClock.now)
            }
        }
    }

    /// Throws ``Trouble/vanished(_:)`` when `signal` says GeoClue left the bus or another process took its name:
    /// the client of `owner` is no more.
    private func watch(_ signal: DBusConnection.Signal, owner: String) throws(Trouble) {
        guard let change = Self.ownerChange(signal), change != .appeared(owner) else { return }
        transient("geoclue.absent", "\(Self.service) left the system bus; waiting for it to come back")
        statistics.withLockedValue { $0.serviceRestarts += 1 }
        throw .vanished(nil)
    }

    /// Drops the positions GeoClue reported before the client stopped to change its level: they are queued
    /// ahead of the answer to `Stop`, and the engine, which asked for the new level already, would take the
    /// first of them as the new level's answer — a level that may never answer (GeoClue's city level where its
    /// only source is NMEA) would then never be found silent. GeoClue leaving the bus meanwhile still counts.
    private func passOverEarlierLevel(_ bus: DBusConnection, client: String, owner: String) throws(Trouble) {
        // A zero wait takes what libdbus has queued and reads nothing more from the socket.
        while let signal = try call({ () throws(DBusFailure) in try bus.nextSignal(waitingAtMost: .zero) }) {
            try watch(signal, owner: owner)
            if Self.locationPath(of: signal, client: client, owner: owner) != nil { droppedAsEarlierLevel() }
        }
    }

    private func droppedAsEarlierLevel() {
        statistics.withLockedValue { $0.earlierLevelFixes += 1 }
        logger.debug("GeoClue reported a position at the level being left: dropped")
    }

    /// `Manager.GetClient`, asked again while GeoClue waits for an agent to authorize the application.
    private func getClient(_ bus: DBusConnection) throws(Trouble) -> String {
        var waited = 0
        while true {
            guard !isStopped else { throw .stopped }
            let answer: [DBusValue]
            do throws(DBusFailure) {
                answer = try bus.call(Self.service, Self.managerPath, "org.freedesktop.GeoClue2.Manager", "GetClient", timeout: configuration.callTimeout)
            } catch let failure where failure.name == DBusFailure.Name.noReply || failure.name == DBusFailure.Name.timeout {
                waited += 1
                statistics.withLockedValue { $0.agentWaits += 1 }
                transient(
                    "geoclue.agent",
                    "GeoClue has not answered GetClient for \(configuration.callTimeout * waited): it waits for an agent to authorize '\(configuration.desktopId)'. GeoClue answers no client of a user without one: run one for this user (a desktop shell, or on a headless machine GeoClue's demo agent, /usr/libexec/geoclue-2.0/demos/agent)"
                )
                if waited % Self.unansweredCallsPerConnection == 0 { throw .renew }
                continue
            } catch {
                throw Self.classify(error)
            }
            guard case .objectPath(let path)? = answer.first else {
                throw .failed(DBusFailure(name: DBusFailure.Name.malformed, message: "GetClient answered \(answer)"))
            }
            return path
        }
    }

    private func configure(_ bus: DBusConnection, _ client: String, level: GeoClueAccuracyLevel) throws(Trouble) {
        try setProperty(bus, client, "DesktopId", .string(configuration.desktopId))
        try setProperty(bus, client, "DistanceThreshold", .uint32(configuration.distanceThreshold))
        try setProperty(bus, client, "TimeThreshold", .uint32(configuration.timeThreshold))
        try setProperty(bus, client, "RequestedAccuracyLevel", .uint32(level.rawValue))
    }

    private func setProperty(_ bus: DBusConnection, _ client: String, _ name: String, _ value: DBusValue) throws(Trouble) {
        try call { () throws(DBusFailure) in
            _ = try bus.call(
                Self.service, client, Self.properties, "Set", [.string(Self.clientInterface), .string(name), .variant(value)],
                timeout: configuration.callTimeout)
        }
    }

    private func start(_ bus: DBusConnection, _ client: String, level: GeoClueAccuracyLevel) throws(Trouble) {
        try call { () throws(DBusFailure) in _ = try bus.call(Self.service, client, Self.clientInterface, "Start", timeout: configuration.callTimeout) }
        statistics.withLockedValue {
            $0.clientStarts += 1
            $0.level = level
        }
        // Not after a stop: a start that GeoClue answered as the engine stopped the source grants nothing more.
        delivering { authorization?.granted() }
    }

    /// A position read at `received`, not yet handed to the engine.
    private struct ReadFix {
        var location: Location
        var received: ContinuousClock.Instant
    }

    /// Reads the `Location` object at `path`, read at `received`, or counts why it is no fix.
    private func read(_ path: String, from bus: DBusConnection, received: ContinuousClock.Instant) throws(Trouble) -> ReadFix? {
        let answer: [DBusValue]
        do throws(DBusFailure) {
            answer = try bus.call(
                Self.service, path, Self.properties, "GetAll", [.string("org.freedesktop.GeoClue2.Location")], timeout: configuration.callTimeout)
        } catch {
            // The bus gone or access denied ends the client; a location object that is no longer there (or
            // never was) is one fix less.
            switch Self.classify(error) {
            case .bus, .denied: throw Self.classify(error)
            default:
                reject(GeoClueFix.Rejection(property: "GetAll", reason: "\(error)"))
                return nil
            }
        }
        guard let properties = answer.first?.stringKeyedDictionary else {
            reject(GeoClueFix.Rejection(property: "GetAll", reason: "answered \(answer), not a{sv}"))
            return nil
        }
        do {
            return ReadFix(location: try GeoClueFix.location(from: properties, accuracyClasses: configuration.accuracyClasses), received: received)
        } catch {
            reject(error)
            return nil
        }
    }

    /// Hands `fix`, read at `level`, to the engine, aged by GeoClue's timestamp, unless the run stopped or the
    /// engine asks another level by now; counted first, so that whoever the fix reaches finds it in the
    /// statistics.
    private func handOver(_ fix: ReadFix, at level: GeoClueAccuracyLevel) {
        let age = fix.location.utcTime.map { Self.age(of: $0, now: wallClock()) } ?? .zero
        delivering(at: level) {
            let handedOver = ContinuousClock.now
            statistics.withLockedValue { $0.recordFix(handOver: fix.received.duration(to: handedOver)) }
            events.location(fix.location, age: age)
        }
    }

    /// How old a fix stamped `time` is at `now` (both Unix seconds): from GeoClue's timestamp when it is
    /// within an hour before now, else zero — a source whose clock is far off (a simulated receiver's date)
    /// says nothing about the fix's age, and GeoClue reports positions as they come.
    static func age(of time: Double, now: Double) -> Duration {
        let seconds = now - time
        guard seconds.isFinite, seconds > 0, seconds < 3600 else { return .zero }
        return .nanoseconds(Int64(seconds * 1e9))
    }

    private func reject(_ rejection: GeoClueFix.Rejection) {
        statistics.withLockedValue { $0.rejectedFixes += 1 }
        logger.warning("GeoClue reported a location that is no fix: dropped", metadata: ["reason": "\(rejection)"])
    }

    // MARK: Helpers

    /// Runs a call, its D-Bus failure classified.
    private func call<T>(_ body: () throws(DBusFailure) -> T) throws(Trouble) -> T {
        do {
            return try body()
        } catch {
            throw Self.classify(error)
        }
    }

    private static func classify(_ failure: DBusFailure) -> Trouble {
        switch failure.name {
        case DBusFailure.Name.accessDenied: .denied(failure)
        case DBusFailure.Name.disconnected, DBusFailure.Name.noServer, DBusFailure.Name.fileNotFound: .bus(failure)
        case DBusFailure.Name.serviceUnknown, DBusFailure.Name.nameHasNoOwner, DBusFailure.Name.unknownObject: .vanished(failure)
        default: .failed(failure)
        }
    }

    private func transient(_ code: String, _ message: String) {
        // What happens after the stop (GeoClue leaving as the test bed shuts down) is no one's news.
        delivering {
            statistics.withLockedValue { $0.errors += 1 }
            logger.warning("\(message)", metadata: ["code": "\(code)"])
            events.transientError(SourceError(code: code, message: message))
        }
    }

    private func denied(_ failure: DBusFailure) {
        statistics.withLockedValue {
            $0.errors += 1
            $0.denials += 1
        }
        let message = "GeoClue refused the location to '\(configuration.desktopId)': \(failure.message)"
        logger.error("\(message)")
        delivering {
            // Told through the engine's authorization when the engine uses GeoClue's, else as the source's end.
            if let authorization, authorization.deny() { return }
            events.fatalError(SourceError(code: "geoclue.denied", message: message))
        }
    }

    private func retryDelay(afterFailures failures: Int) -> Duration {
        var delay = configuration.retryDelay
        for _ in 1..<max(1, min(failures, 32)) where delay < configuration.maximumRetryDelay { delay = delay * 2 }
        return min(delay, configuration.maximumRetryDelay)
    }

    /// The next signal from the bus, or `nil` when the engine asked something meanwhile (the worker's wake-up):
    /// sleeps until one or the other.
    private func nextSignal(_ bus: DBusConnection) throws(Trouble) -> DBusConnection.Signal? {
        defer { statistics.withLockedValue { $0.wakeups += bus.takeWakeups() } }
        return try call { () throws(DBusFailure) in try bus.nextSignal(waitingAtMost: nil, orUntil: wake) }
    }

    /// A connection to the bus at `address`, opened by the connector within the call timeout: a bus whose queue
    /// of connections is full (stalled) holds the attempt, not this thread, which hears a stop meanwhile.
    private func connect(_ address: String) throws(Trouble) -> OpenedDBusConnection {
        let end = ContinuousClock.now + configuration.callTimeout
        while !isStopped {
            if let outcome = connector.poll(address) {
                do { return try outcome.get() } catch { throw .bus(error) }
            }
            let left = ContinuousClock.now.duration(to: end)
            guard left > .zero else {
                throw .bus(
                    DBusFailure(
                        name: DBusFailure.Name.timeout,
                        message: "the bus did not take the connection within \(configuration.callTimeout): its queue of connections is full"))
            }
            wake.wait(timeout: left)
            statistics.withLockedValue { $0.wakeups += 1 }
        }
        throw .stopped
    }

    /// Waits `duration`, or less when the engine stops the source.
    private func pause(_ duration: Duration) throws(Trouble) {
        let end = ContinuousClock.now + duration
        while !isStopped {
            let left = ContinuousClock.now.duration(to: end)
            guard left > .zero else { return }
            wake.wait(timeout: left)
            statistics.withLockedValue { $0.wakeups += 1 }
        }
        throw .stopped
    }
}
