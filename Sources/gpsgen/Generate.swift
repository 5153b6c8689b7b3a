import ArgumentParser
import Foundation
import LocationEngine
import SyntheticGPS

/// What `gpsgen` generates, and how: the options of `gpsgen` itself (and of `gpsgen generate`, kept for
/// scripts). Writes a scenario as NMEA, GPX or GeoJSON, optionally in real time, over TCP or on a terminal.
struct GenerateOptions: ParsableArguments {
    @Option(help: "Scenario: \(Scenario.names.joined(separator: ", ")).")
    var scenario = "drive"

    @Option(parsing: .unconditional, help: "Scenario time to generate, e.g. 90s, 10m, 1h (at most 3650d).")
    var duration = "10m"

    /// The longest `--duration`, in seconds: ten years.
    static let longestDuration = 3650 * 86_400.0
    /// The UNIX seconds NMEA's two-digit years stand for as their readers take them: 1980-01-01 to 2080-01-01.
    static let nmeaYears = 315_532_800.0...3_471_292_800.0
    /// The most epochs a run writes when it is not paced (no --realtime, --listen or --terminal): about 30 GB of NMEA.
    static let mostBatchEpochs = 1e8

    @Option(parsing: .unconditional, help: "Fixes per second in the finest power modes (0.001 to 50).")
    var rate = 1.0

    @Option(parsing: .unconditional, help: "Seed of every random choice; the same seed gives the same output (42, as locbench's and the example server's).")
    var seed: UInt64 = 42

    @Option(help: "Output format: nmea, gpx, geojson.")
    var format = "nmea"

    @Option(help: "Write to FILE instead of standard output.")
    var output: String?

    @Flag(help: "Pace the output in real time (one epoch per fix interval).")
    var realtime = false

    @Option(help: "Serve the NMEA stream over TCP on HOST:PORT (e.g. 127.0.0.1:4000), or on a Unix socket unix:PATH (for GeoClue's --nmea-socket; a socket another server still listens on is refused, one left by an ended run replaced); implies --realtime.")
    var listen: String?

    @Option(help: "Power mode: lowest, low, medium, high, best.")
    var power = "best"

    @Option(help: "Receiver memory at power-on: cold, warm, hot.")
    var start = "hot"

    @Option(parsing: .unconditional, help: "UTC time of the first fix: UNIX seconds, or now (the wall clock when the stream starts — with --listen, when the first client connects: what GeoClue, which dates NMEA's time of day with today's date, needs). Default 2026-01-01T00:00:00Z; NMEA's two-digit years stand for 1980 to 2079, so NMEA runs must lie within them.")
    var startTime: String?

    @Option(parsing: .unconditionalSingleValue, help: "A sky outage START+LENGTH, e.g. 120s+45s (repeatable).")
    var outage: [String] = []

    @Option(parsing: .unconditional, help: "Start position LAT,LON in degrees, e.g. -33.9,18.4 (default: Berlin; a pole excluded).")
    var origin: String?

    @Option(help: "Behave like a real receiver on the line: mtk, ublox or plain (obeys power commands, meters its current).")
    var persona: String?

    @Option(help: "With --persona: how commands are answered: normal, refuse, drop, garble, ignore, late (2 s after).")
    var acknowledgements = "normal"

    @Option(help: "With --persona: answer one class of command otherwise, CLASS=BEHAVIOR (repeatable): tracking, rate, power-save or sleep, e.g. tracking=refuse --command-acknowledgements sleep=ignore (a receiver that will not leave power save and ignores its sleep).")
    var commandAcknowledgements: [String] = []

    @Option(help: "With --persona ublox: the generation, u7 (CFG messages, CFG-PM2 version 1, no PROTVER in MON-VER), m8 (CFG messages; the default) or m10 (configuration keys through CFG-VALSET).")
    var ublox = "m8"

    @Option(help: "With --persona: serve on this terminal (one end of a socat pty pair) or FIFO instead of --listen. A client that sends commands and never reads loses their replies, as on a receiver whose output buffer is full; a terminal whose other end hangs up ends the run with an error.")
    var terminal: String?

    func validate() throws {
        _ = try configuration()
    }

    /// Generates what the options say.
    func generate() async throws {
        let settings = try configuration()
        var receiver = SyntheticReceiver(scenario: settings.scenario, mode: settings.mode)
        if let persona = settings.persona {
            var commanded = CommandedReceiver(scenario: settings.scenario, persona: persona, acknowledgements: settings.acknowledgements)
            commanded.ubloxGeneration = settings.ubloxGeneration
            commanded.commandBehaviors = settings.commandBehaviors
            try await Serve.persona(commanded, duration: settings.duration, address: settings.listen, terminal: terminal)
            return
        }
        if let address = settings.listen {
            try await Serve.run(
                scenario: settings.scenario, mode: settings.mode, startsNowAtConnection: startTime == "now", duration: settings.duration,
                address: address)
            return
        }
        let sink = try OutputSink(path: output)
        var writer = settings.format.makeWriter(for: settings.scenario)
        if realtime {
            try await Play.realtime(receiver: &receiver, duration: settings.duration, writer: &writer, sink: sink)
        } else {
            try Play.batch(receiver: &receiver, duration: settings.duration, writer: &writer, sink: sink)
        }
    }

    /// Everything the options describe, validated.
    private struct Settings {
        var scenario: Scenario
        var mode: PowerMode
        var duration: Double
        var format: OutputFormat
        var listen: ListenAddress?
        var persona: ReceiverPersona?
        var acknowledgements: AcknowledgementBehavior
        var commandBehaviors: [ReceiverCommandClass: AcknowledgementBehavior]
        var ubloxGeneration: UbloxGeneration
    }

    private func configuration() throws -> Settings {
        do {
            var scenario = try Scenario.named(self.scenario, seed: seed)
            // Not below a fix every 1,000 s: a rate so small that a fix interval is not finite (1e-310) gave no
            // fix at all and a zero exit.
            guard rate.isFinite, rate >= Scenario.fixRates.lowerBound, rate <= 50 else {
                throw ValidationError("--rate must be from 0.001 to 50 fixes per second (got \(rate))")
            }
            scenario.fixInterval = 1 / rate
            guard let condition = StartCondition(rawValue: start.lowercased()) else {
                throw ValidationError("unknown --start '\(start)'; choose cold, warm or hot")
            }
            scenario.startCondition = condition
            for text in outage { scenario.outages.windows.append(try Outage(parsing: text)) }
            if let startTime {
                if startTime == "now" {
                    scenario.startTime = Date().timeIntervalSince1970.rounded(.down)
                } else if let seconds = Double(startTime), seconds.isFinite, seconds >= 0, seconds < 32_503_680_000 {
                    scenario.startTime = seconds.rounded(.down)
                } else {
                    throw ValidationError("--start-time must be UNIX seconds (from 1970 up to year 3000) or now (got '\(startTime)')")
                }
            }
            if let origin { scenario.origin = try Self.coordinate(origin) }
            guard let mode = PowerMode.allCases.first(where: { $0.description == power.lowercased() }) else {
                throw ValidationError("unknown --power '\(power)'; choose lowest, low, medium, high or best")
            }
            let seconds = try DurationText.seconds(parsing: duration)
            // Ten years of epochs is more than anyone streams; longer ones overflow the sleeps and the counts.
            guard seconds <= Self.longestDuration else {
                throw ValidationError("--duration must be at most 10 years (3650d) (got '\(duration)')")
            }
            guard seconds > 0 else { throw ValidationError("--duration must be more than 0 (got '\(duration)'): a run of no time writes nothing") }
            // Streamed runs last their duration and a client stops them; a file written as fast as it can be is bounded.
            let epochs = seconds * rate
            if listen == nil, terminal == nil, !realtime, epochs > Self.mostBatchEpochs {
                throw ValidationError(
                    "--duration \(duration) at --rate \(rate) is \(Int(epochs)) epochs, hundreds of bytes each (about \(Int(epochs * 300 / 1e9)) GB of NMEA); at most "
                        + "100,000,000 epochs (3.2 years at one a second) are written in one run: shorten --duration or lower --rate")
            }
            let format = try OutputFormat.named(self.format)
            // NMEA's dates have two-digit years, which its readers (gpsd, this package's decoder) take as 1980–2079:
            // a run outside those years would be read as another century.
            if format == .nmea, scenario.startTime < Self.nmeaYears.lowerBound || scenario.startTime + seconds > Self.nmeaYears.upperBound {
                throw ValidationError(
                    "NMEA dates have two-digit years, read as 1980 to 2079: choose a --start-time (and --duration) within them, or --format gpx or geojson")
            }
            let address = try listen.map { text throws(SyntheticGPSError) in try ListenAddress(parsing: text) }
            if address != nil && format != .nmea {
                throw ValidationError("--listen serves NMEA; drop --format \(self.format)")
            }
            let persona = try self.persona.map { name in
                guard let persona = ReceiverPersona(name: name) else {
                    throw ValidationError("unknown --persona '\(name)'; choose mtk, ublox or plain")
                }
                return persona
            }
            guard let behavior = AcknowledgementBehavior(rawValue: acknowledgements.lowercased()) else {
                throw ValidationError("unknown --acknowledgements '\(acknowledgements)'; choose normal, refuse, drop, garble, ignore or late")
            }
            var commandBehaviors: [ReceiverCommandClass: AcknowledgementBehavior] = [:]
            for item in commandAcknowledgements {
                let parts = item.lowercased().split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let commandClass = ReceiverCommandClass(rawValue: parts[0]),
                    let commandBehavior = AcknowledgementBehavior(rawValue: parts[1])
                else {
                    throw ValidationError(
                        "--command-acknowledgements takes CLASS=BEHAVIOR: tracking, rate, power-save or sleep = normal, refuse, drop, garble, ignore or late (got '\(item)')")
                }
                commandBehaviors[commandClass] = commandBehavior
            }
            guard let generation = UbloxGeneration(rawValue: ublox.lowercased()) else {
                throw ValidationError("unknown --ublox '\(ublox)'; choose u7, m8 or m10")
            }
            if persona != nil, (address == nil) == (terminal == nil) {
                throw ValidationError("--persona needs exactly one of --listen HOST:PORT or --terminal PATH")
            }
            if persona == nil, terminal != nil { throw ValidationError("--terminal needs --persona") }
            if persona != nil, address?.unixSocketPath != nil {
                throw ValidationError("--persona serves on TCP or a terminal; a unix: socket serves the plain NMEA stream (drop --persona)")
            }
            if let ignored = ignoredOption(persona: persona, address: address, format: format) { throw ValidationError(ignored) }
            return Settings(
                scenario: scenario, mode: mode, duration: seconds, format: format, listen: address, persona: persona,
                acknowledgements: behavior, commandBehaviors: commandBehaviors, ubloxGeneration: generation)
        } catch let error as SyntheticGPSError {
            throw ValidationError(error.message)
        }
    }

    /// Why an option given would be ignored by the run the others describe (and what to do), or `nil`.
    private func ignoredOption(persona: ReceiverPersona?, address: ListenAddress?, format: OutputFormat) -> String? {
        let commandOptions = [
            ("--acknowledgements", acknowledgements.lowercased() != "normal"), ("--command-acknowledgements", !commandAcknowledgements.isEmpty),
        ].filter(\.1).map(\.0)
        switch persona {
        case nil:
            if let first = commandOptions.first ?? (ublox.lowercased() != "m8" ? "--ublox" : nil) {
                return "\(first) applies to a receiver that takes commands: add --persona, or leave \(first) out"
            }
        case .plain?:
            if let first = commandOptions.first { return "--persona plain takes no command, so \(first) would change nothing: leave it out" }
        default: break
        }
        if let persona, persona != .ublox, ublox.lowercased() != "m8" { return "--ublox applies to --persona ublox" }
        if persona != nil {
            if power.lowercased() != "best" { return "--persona starts tracking and changes its power mode on commands: leave out --power" }
            if format != .nmea { return "--persona serves NMEA: leave out --format \(self.format)" }
        }
        if output != nil, address != nil || terminal != nil {
            return "--output writes a file, and --\(address != nil ? "listen" : "terminal") serves the stream instead: choose one"
        }
        return nil
    }

    private static func coordinate(_ text: String) throws -> Coordinate {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 2, let latitude = parts[0], let longitude = parts[1],
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        else {
            throw ValidationError("bad --origin '\(text)'; write LAT,LON in degrees, e.g. 52.52,13.405")
        }
        // At a pole every direction is south (or north) and the scenarios' east-west legs have no meaning: the
        // positions computed from one are not coordinates.
        guard abs(latitude) < 90 else {
            throw ValidationError("--origin \(text) is a pole, where a moving scenario has no east or west; start at most 89.999 degrees from the equator")
        }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}

/// `gpsgen generate`: the same as `gpsgen` with no subcommand, for scripts written when it was one.
struct Generate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The same as gpsgen without a subcommand.", shouldDisplay: false)

    @OptionGroup var options: GenerateOptions

    func run() async throws { try await options.generate() }
}
