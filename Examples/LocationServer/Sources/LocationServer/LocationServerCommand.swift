import ArgumentParser
import Foundation
import Hummingbird
import LocationEngine
import LocationSourcesGeoClue
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Prometheus
import SyntheticGPS

/// `location-server`: the engine behind HTTP. Parses its arguments, builds the application and runs it
/// until SIGTERM or SIGINT, then prints its exit report.
@main
struct LocationServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "location-server",
        abstract: "Serves locations over HTTP: GET /location, /updates (server-sent events), /geofences, /metrics, /health.")

    @Option(help: "Address to listen on. Beyond loopback (127.0.0.0/8, ::1) the server needs --tokens.")
    var host = "127.0.0.1"

    @Option(parsing: .unconditional, help: "Port to listen on (0: any free port, printed at start).")
    var port = 8080

    @Option(help: "Listen on a Unix-domain socket at PATH instead of --host and --port: a request without a token is its peer's user (uid:N lines of --tokens; without them each user its own client). The socket file's mode says who may connect.")
    var unixSocket: String?

    @Option(help: "Read fixes from gpsd at HOST:PORT instead of the synthetic receiver (beside --geoclue and --static if given).")
    var gpsd: String?

    @Option(help: "Replay an NMEA log at its recorded pace instead of the synthetic receiver.")
    var nmea: String?

    @Option(name: .customLong("static"), help: "A position that does not move, LAT,LON,ACC (degrees, degrees, metres; e.g. 52.52,13.405,25): a source of its own, beside --gpsd/--nmea and --geoclue or alone.")
    var staticLocation: String?

    @Flag(help: "Read positions from GeoClue2, the system location service, on the system bus: a coarse source beside --gpsd/--nmea (the engine wakes the receiver only for requests finer than GeoClue reaches), or alone.")
    var geoclue = false

    @Option(help: "The desktop ID the server gives GeoClue (GeoClue's configuration and agent decide by it; with --geoclue, default location-server).")
    var geoclueDesktopId: String?

    @Option(help: "Synthetic scenario: \(Scenario.names.joined(separator: ", ")) (default drive; only for the synthetic receiver).")
    var scenario: String?

    @Option(help: "Synthetic fixes per second (0.001 to 100; default 1; only for the synthetic receiver).")
    var fixRate: Double?

    @Option(help: "Synthetic receiver seed (default 42; only for the synthetic receiver).")
    var seed: UInt64?

    @Option(parsing: .unconditional, help: "How long the source keeps running after the last request needing it (e.g. 5s, 500ms; at most 24h).")
    var linger = "5s"

    @Option(help: "The most geofences monitored at once (POST /geofences answers 409 past it).")
    var maxGeofences = 1000

    @Option(help: "The most geofences one client has at once (default: --max-geofences; 409 past it).")
    var maxGeofencesPerClient: Int?

    @Option(help: "The SQLite file that keeps the fences and their events across restarts (created on first start; :memory: keeps nothing).")
    var database = ServerDatabase.defaultPath

    @Option(help: "How a commit reaches the disk: normal (survives the process killed; a power loss may lose the commits since the last checkpoint) or full (flushed at every commit: survives a power loss too).")
    var databaseSync: DatabaseSync = .normal

    @Option(help: "Events kept for clients resuming with Last-Event-ID: the newest this many.")
    var eventRetentionCount = 100_000

    @Option(help: "Events kept for clients resuming with Last-Event-ID: none older than this many seconds (default a week).")
    var eventRetentionAge = 604_800.0

    @Option(help: "The token file: one client a line, TOKEN CLIENT PERMISSION [admin] [expires=DATE] (precise, approximate or none); read again on SIGHUP. Without it, only loopback, and every request is served as before.")
    var tokens: String?

    @Option(help: "Requests a second each client may make (past it: 429 with Retry-After). Default: no limit.")
    var clientRateLimit: Double?

    @Option(help: "Requests a client may make at once after a pause (with --client-rate-limit; default: one second's worth, at least 1).")
    var clientRateBurst: Double?

    @Option(help: "Requests each client may have open at once: each /location until it is answered, each stream until it ends (past it: 429). Default: no limit.")
    var clientMaxOpen: Int?

    @Option(help: "Also write the exit report (one JSON line) to this file.")
    var exitReport: String?

    @Option(help: "How much the server logs (the least severe level it prints).")
    var logLevel: Logger.Level = .info

    func validate() throws {
        _ = try sourceChoices()
        _ = try lingerDuration()
        guard maxGeofences >= 0 else { throw ValidationError("--max-geofences must be 0 or more (got \(maxGeofences))") }
        if let maxGeofencesPerClient, maxGeofencesPerClient < 0 {
            throw ValidationError("--max-geofences-per-client must be 0 or more (got \(maxGeofencesPerClient))")
        }
        guard eventRetentionCount >= 1 else { throw ValidationError("--event-retention-count must be 1 or more (got \(eventRetentionCount))") }
        guard eventRetentionAge.isFinite, eventRetentionAge > 0 else {
            throw ValidationError("--event-retention-age must be a number of seconds more than 0 (got \(eventRetentionAge))")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be in 0...65535 (got \(port))") }
        if let unixSocket {
            guard !unixSocket.isEmpty, unixSocket.utf8.count < 108 else {
                throw ValidationError("--unix-socket must be a path of 1 to 107 bytes (a Unix socket's limit; got \(unixSocket.utf8.count))")
            }
            var isDirectory: ObjCBool = false
            let directory = URL(fileURLWithPath: unixSocket).deletingLastPathComponent().path
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--unix-socket \(unixSocket): the directory \(directory) does not exist; create it first")
            }
            // Creating the socket's file needs write and search permission on its directory.
            guard access(directory, W_OK | X_OK) == 0 else {
                throw ValidationError("--unix-socket \(unixSocket): the directory \(directory) may not be written by this user")
            }
        } else if tokens == nil, !ListenScope.isLoopback(host) {
            throw ValidationError(
                "--host \(host) reaches beyond this machine, and without --tokens the server would give the device's position to anyone "
                    + "who reaches it. Give it a token file, --tokens FILE, one client a line: TOKEN CLIENT PERMISSION (precise, approximate "
                    + "or none), e.g. 'k3J9q2x7Lm4pR8sT0vW5 fleet precise' (a token of 16 or more random characters: openssl rand -hex 24); "
                    + "or listen on 127.0.0.1.")
        }
        _ = try rateLimit()
        if let clientMaxOpen, clientMaxOpen < 1 {
            throw ValidationError("--client-max-open must be 1 or more requests open at once (got \(clientMaxOpen))")
        }
        if let exitReport { try Self.checkCanWrite(exitReport, option: "--exit-report") }
    }

    /// Refuses at start a file that could not be written at the end: a directory, a file that may not be written,
    /// or one whose directory does not exist or may not be written.
    static func checkCanWrite(_ path: String, option: String) throws {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if files.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard !isDirectory.boolValue else { throw ValidationError("\(option) \(path) is a directory: name a file") }
            guard files.isWritableFile(atPath: path) else { throw ValidationError("\(option): \(path) may not be written") }
            return
        }
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard files.fileExists(atPath: parent, isDirectory: &isDirectory), isDirectory.boolValue, files.isWritableFile(atPath: parent) else {
            throw ValidationError("\(option): cannot create \(path): the directory \(parent) does not exist or may not be written")
        }
    }

    /// The per-client rate limit the options name, if any.
    func rateLimit() throws -> RateLimit? {
        guard let rate = clientRateLimit else {
            if clientRateBurst != nil { throw ValidationError("--client-rate-burst needs --client-rate-limit") }
            return nil
        }
        guard rate.isFinite, rate > 0 else { throw ValidationError("--client-rate-limit must be a number of requests a second more than 0 (got \(rate))") }
        let burst = clientRateBurst ?? max(1, rate)
        guard burst.isFinite, burst >= 1 else { throw ValidationError("--client-rate-burst must be 1 or more (got \(burst))") }
        return RateLimit(rate: rate, burst: burst)
    }

    /// The sources the options name, in the engine's order (a receiver first, then GeoClue, then the fixed
    /// position): any combination of --gpsd or --nmea, --geoclue and --static; the synthetic receiver when
    /// none is named.
    func sourceChoices() throws -> [SourceChoice] {
        if gpsd != nil && nmea != nil { throw ValidationError("--gpsd and --nmea name two receivers: give one (beside --geoclue and --static if you like)") }
        var choices: [SourceChoice] = []
        if let text = gpsd {
            guard let address = try? ListenAddress(parsing: text), address.port != 0 else {
                throw ValidationError("--gpsd: expected HOST:PORT, e.g. 127.0.0.1:2947 or [::1]:2947 (got '\(text)')")
            }
            choices.append(.gpsd(address))
        }
        if let path = nmea {
            var isDirectory: ObjCBool = false
            guard FileManager.default.isReadableFile(atPath: path), FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            else {
                throw ValidationError("--nmea: cannot read the NMEA log '\(path)'\(isDirectory.boolValue ? ": it is a directory" : "")")
            }
            choices.append(.nmea(path: path))
        }
        if geoclue {
            let desktopId = geoclueDesktopId ?? "location-server"
            guard !desktopId.isEmpty else { throw ValidationError("--geoclue-desktop-id must not be empty: GeoClue requires one") }
            choices.append(.geoclue(desktopId: desktopId))
        } else if geoclueDesktopId != nil {
            throw ValidationError("--geoclue-desktop-id names the server to GeoClue: give it with --geoclue, or leave it out")
        }
        if let text = staticLocation {
            do {
                choices.append(try SourceChoice.fixed(parsing: text))
            } catch {
                throw ValidationError("--static: \(error)")
            }
        }
        if !choices.isEmpty {
            // The synthetic receiver's settings would be dropped without a word: a typo, or a source missing.
            let synthetic = [scenario.map { _ in "--scenario" }, fixRate.map { _ in "--fix-rate" }, seed.map { _ in "--seed" }].compactMap { $0 }
            guard synthetic.isEmpty else {
                throw ValidationError(
                    "\(synthetic.joined(separator: ", ")) set the synthetic receiver, which --gpsd, --nmea, --geoclue and --static replace: "
                        + "leave \(synthetic.count == 1 ? "it" : "them") out")
            }
            return choices
        }
        let scenario = scenario ?? "drive"
        guard Scenario.names.contains(scenario) else {
            throw ValidationError("--scenario must be one of \(Scenario.names.joined(separator: ", ")) (got '\(scenario)')")
        }
        let fixRate = fixRate ?? 1
        guard Scenario.fixRates.contains(fixRate) else {
            throw ValidationError("--fix-rate must be from 0.001 (a fix every 1,000 s) to 100 (got \(fixRate))")
        }
        return [.synthetic(scenario: scenario, fixRate: fixRate, seed: seed ?? 42)]
    }

    /// The longest `--linger` taken: a day (a source kept running longer than that is one never let go).
    static let longestLinger = 86_400.0

    func lingerDuration() throws -> Duration {
        let seconds: Double
        do {
            seconds = try DurationText.seconds(parsing: linger)
        } catch {
            throw ValidationError("--linger: \(error)")
        }
        guard seconds <= Self.longestLinger else { throw ValidationError("--linger must be at most a day, 24h (got '\(linger)')") }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The engine's authorization for these sources: GeoClue's, when GeoClue is one — its refusal (the system's
    /// location setting for this server) then ends requests unauthorized (403), not failed — else the engine's
    /// default.
    static func authorization(for sources: [any LocationSource]) -> (any AuthorizationProvider)? {
        sources.lazy.compactMap { ($0 as? GeoClueLocationSource)?.authorization }.first
    }

    func run() async throws {
        // A SIGHUP while the server starts (opening the database, restoring fences, before any service traps it)
        // would end the process, whose default action it is: ignored until the token file's reader traps it.
        signal(SIGHUP, SIG_IGN)
        var logger = Logger(label: "location-server")
        logger.logLevel = logLevel
        let registry = PrometheusCollectorRegistry()
        let counters = ServerCounters(registry: registry)
        let metrics = PrometheusMetricsFactory(registry: registry)
        var configuration = LocationEngineConfiguration(linger: try lingerDuration())
        configuration.metricsFactory = metrics
        let sources = try sourceChoices().map { try $0.makeSource(logger: logger, metricsFactory: metrics) }
        if let provider = Self.authorization(for: sources) { configuration.authorizationProvider = provider }
        let engine = LocationEngine(sources: sources, configuration: configuration, logger: logger)

        let geofences = try GeofenceRegistry.open(
            database: database, sync: databaseSync, retention: EventStore.Retention(count: eventRetentionCount, age: eventRetentionAge),
            maximumFences: maxGeofences, maximumFencesPerClient: maxGeofencesPerClient, counters: GeofenceCounters(registry: registry), logger: logger,
            restoringInto: engine)
        // A token file the server cannot use stops it here, naming the file and the line.
        let clients: ClientDirectory
        if let tokens {
            clients = try ClientDirectory.tokens(path: tokens, logger: logger)
            logger.info("clients: token file read", metadata: ["path": "\(tokens)", "clients": "\(clients.current.clientCount)"])
        } else {
            clients = .open(logger: logger)
        }
        let application = LocationServerApplication(
            engine: engine, registry: registry, counters: counters, geofences: geofences, clients: clients, clientRateLimit: try rateLimit(),
            clientMaxOpen: clientMaxOpen)
        let heapIdle = NIOLockedValueBox<UInt64>(0)
        let services = application.serviceGroup(
            configuration: .init(address: try bindAddress(), serverName: "location-server"), logger: logger
        ) { channel in
            heapIdle.withLockedValue { $0 = counters.sampleHeap() }
            // The port, for a caller that asked for any free one, or the socket's path (standard output is
            // line-buffered only on a terminal: write the line through unbuffered).
            let listening = unixSocket ?? "\(channel.localAddress?.port ?? 0)"
            FileHandle.standardOutput.write(Data("listening on \(listening)\n".utf8))
        }
        try await services.run()

        let report = ExitReport(
            http: counters.totals, geofences: geofences.counters.totals, engine: ExitReport.Engine(await engine.statistics()),
            heapIdleBytes: heapIdle.withLockedValue { $0 }, heapAtExitBytes: counters.sampleHeap(), cpuSeconds: processCPUSeconds())
        print(report.json)
        if let exitReport {
            do {
                try Data((report.json + "\n").utf8).write(to: URL(fileURLWithPath: exitReport))
            } catch {
                throw ValidationError("--exit-report: cannot write \(exitReport): \(error.localizedDescription)")
            }
        }
    }
}

extension LocationServerCommand {
    /// Where the server listens: `--unix-socket`'s path (a socket file left there by an earlier run is
    /// replaced; one a running server still listens on, or any other file, is refused), else `--host` and `--port`.
    func bindAddress() throws -> BindAddress {
        guard let unixSocket else { return .hostname(ListenScope.bare(host), port: port) }
        switch UnixSocketFile.at(unixSocket) {
        case .absent: break
        case .notASocket: throw ValidationError("--unix-socket \(unixSocket): a file that is not a socket is there; the server does not replace it")
        case .listening: throw ValidationError("--unix-socket \(unixSocket): a running server listens there; stop it first, or choose another path")
        case .stale:
            guard unlink(unixSocket) == 0 else {
                throw ValidationError("--unix-socket \(unixSocket): the socket left by an earlier run cannot be removed (\(String(cString: strerror(errno))))")
            }
        }
        return .unixDomainSocket(path: unixSocket)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
extension DatabaseSync: ExpressibleByArgument {}
