import Foundation
import LocationEngine
import SyntheticGPS
import TestSupport
@testable import LocationSourcesGeoClue

/// A private system bus, GeoClue2 on it reading network NMEA from a Unix socket that a synthetic receiver
/// serves, and GeoClue's demo agent: the real components, started by the test and stopped by it.
///
/// The bus is a `dbus-daemon` with a configuration of type `system` whose policy lets anyone own a name
/// (so GeoClue runs as the test's user), listening on a socket in a directory of the test's; GeoClue and
/// the agent find it through `DBUS_SYSTEM_BUS_ADDRESS`. GeoClue's other sources (Wi-Fi, cell, modem)
/// find nothing here and use no network.
final class GeoClueTestBed: @unchecked Sendable {
    // @unchecked: the child processes are replaced only by the test that owns the bed, one step at a time.
    let directory: String
    let busAddress: String
    private var bus: ChildProcess
    private var geoclue: ChildProcess?
    private var agent: ChildProcess?
    private let feed: NMEAFeedServer
    private let player: Task<Void, Never>

    /// Why the machine cannot run the bed, or `nil` when it can.
    static var unavailable: String? {
        if Tools.dbusDaemon == nil { return "dbus-daemon is not installed (Scripts/bootstrap.sh installs dbus-daemon)" }
        if Tools.geoclue == nil { return "GeoClue is not installed (Scripts/bootstrap.sh installs geoclue-2.0)" }
        if Tools.geoclueAgent == nil { return "GeoClue's demo agent is not installed (it comes with geoclue-2.0)" }
        return nil
    }

    /// Starts the bus and the NMEA feed (a fix every `fixInterval` seconds), and GeoClue and the agent unless
    /// told not to. With `activatable`, the bus starts GeoClue on demand, as a stock system does (a D-Bus
    /// service file for its name); the bus stops it when it stops.
    static func start(
        geoclue startGeoClue: Bool = true, agent startAgent: Bool = true, activatable: Bool = false, fixInterval: Double = 1,
        busLimits: [String: Int] = [:]
    ) async throws -> GeoClueTestBed {
        // A short path: a Unix socket's path holds at most 107 bytes.
        var template = Array("/tmp/geoclue-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw HarnessError(description: "mkdtemp failed") }
        let directory = String(cString: made)
        var services = ""
        if activatable {
            try FileManager.default.createDirectory(atPath: "\(directory)/services", withIntermediateDirectories: true)
            // GeoClue finds this bus by its environment; the bus starts services without the test's.
            let service = """
                [D-BUS Service]
                Name=\(GeoClueSession.service)
                Exec=/usr/bin/env DBUS_SYSTEM_BUS_ADDRESS=unix:path=\(directory)/bus \(Tools.geoclue!) -t 0 -u \(directory)/nmea
                """
            try service.write(toFile: "\(directory)/services/\(GeoClueSession.service).service", atomically: true, encoding: .utf8)
            services = "<servicedir>\(directory)/services</servicedir>"
        }
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(directory)/bus</listen>
              <auth>EXTERNAL</auth>
              \(services)
              \(busLimits.map { "<limit name=\"\($0.key)\">\($0.value)</limit>" }.joined())
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_type="method_return"/>
                <allow send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="signal"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
              </policy>
            </busconfig>
            """
        try configuration.write(toFile: "\(directory)/bus.conf", atomically: true, encoding: .utf8)
        let bus = try ChildProcess(Tools.dbusDaemon!, ["--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"])
        try await waitFor("the bus to answer") { answers("unix:path=\(directory)/bus") }
        let feed = try await NMEAFeedServer.start(on: ListenAddress(unixSocketPath: "\(directory)/nmea"))
        let player = Task {
            var scenario = Scenario.walk(seed: 42)
            scenario.fixInterval = fixInterval
            // GeoClue dates NMEA's time of day with today's date: the stream starts at the wall clock's time,
            // so that the fixes' ages are what they are whatever the hour.
            scenario.startTime = Date().timeIntervalSince1970.rounded(.down)
            var receiver = SyntheticReceiver(scenario: scenario)
            var writer = NMEAWriter()
            try? await EpochPlayer.play(&receiver, for: 3600, pacedBy: ContinuousClock()) { epoch in
                var text = ""
                writer.write(epoch, to: &text)
                feed.broadcast(text)
            }
        }
        let bed = GeoClueTestBed(directory: directory, bus: bus, feed: feed, player: player)
        if startGeoClue { try await bed.startGeoClue() }
        if startAgent { try await bed.startAgent() }
        return bed
    }

    private init(directory: String, bus: ChildProcess, feed: NMEAFeedServer, player: Task<Void, Never>) {
        self.directory = directory
        busAddress = "unix:path=\(directory)/bus"
        self.bus = bus
        self.feed = feed
        self.player = player
    }

    private var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": busAddress] }

    /// Kills the bus (GeoClue and the agent go with it: they exit when their bus closes) and starts it
    /// again at the same address, then GeoClue and the agent.
    func restartBus() async throws {
        await bus.stop()
        await agent?.stop()
        await geoclue?.stop()
        try? FileManager.default.removeItem(atPath: "\(directory)/bus")
        bus = try ChildProcess(Tools.dbusDaemon!, ["--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"])
        try await waitFor("the bus to answer") { Self.answers(self.busAddress) }
        try await startGeoClue()
        try await startAgent()
    }

    /// Freezes the bus (SIGSTOP): it takes connections' bytes into its socket's buffer no more, and answers nothing.
    func freezeBus() { bus.send(SIGSTOP) }

    /// Lets a frozen bus go on (SIGCONT).
    func thawBus() { bus.send(SIGCONT) }

    /// Starts GeoClue (never exiting when idle, its network NMEA from the feed) and waits until it owns its name.
    func startGeoClue() async throws {
        geoclue = try ChildProcess(Tools.geoclue!, ["-t", "0", "-u", "\(directory)/nmea"], environment: environment)
        try await waitFor("GeoClue on the bus") { self.geoclueIsOnTheBus() }
    }

    /// Kills GeoClue (SIGKILL: a crash) and waits until it has left the bus.
    func killGeoClue() async throws {
        await geoclue?.stop()
        geoclue = nil
        try await waitFor("GeoClue to leave the bus") { !self.geoclueIsOnTheBus() }
    }

    /// Starts GeoClue's demo agent for the test's user (it registers with GeoClue whenever GeoClue is on the bus).
    func startAgent() async throws {
        agent = try ChildProcess(Tools.geoclueAgent!, [], environment: environment)
    }

    func geoclueIsOnTheBus() -> Bool {
        guard let connection = try? DBusConnection(address: busAddress, timeout: .seconds(2)),
            let answer = try? connection.call(
                "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", [.string(GeoClueSession.service)],
                timeout: .seconds(2))
        else { return false }
        return answer.first == .boolean(true)
    }

    /// Stops everything the bed started and removes its directory.
    func stop() async {
        player.cancel()
        await agent?.stop()
        await geoclue?.stop()
        await feed.close()
        await bus.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Whether the bus at `address` takes a connection and answers its Hello: its socket's file appears when
    /// the daemon binds it, a moment before it listens, when a connection is still refused.
    static func answers(_ address: String) -> Bool { (try? DBusConnection(address: address, timeout: .seconds(2))) != nil }

    /// Waits, polling every 20 ms, until `condition` holds (``pollUntil(_:seconds:_:)``).
    static func waitFor(_ what: String, seconds: Int = 20, _ condition: @escaping @Sendable () -> Bool) async throws {
        try await pollUntil(what, seconds: seconds, condition)
    }

    func waitFor(_ what: String, seconds: Int = 20, _ condition: @escaping @Sendable () -> Bool) async throws {
        try await Self.waitFor(what, seconds: seconds, condition)
    }
}
