import ArgumentParser
import Foundation
import LocationEngine
import LocbenchModel
import SyntheticGPS

/// locbench's options checked (a clear error before anything runs) and what they mean once parsed: the
/// source, the arrivals, the timeouts, the power-down rule.
extension LocBench {
    mutating func validate() throws {
        guard requests >= 1 else { throw ValidationError("--requests must be at least 1 (got \(requests))") }
        guard requests <= 20_000_000 else { throw ValidationError("--requests is capped at 20,000,000 (got \(requests))") }
        guard ClockKind(rawValue: clock) != nil else { throw ValidationError("--clock must be virtual or wall (got '\(clock)')") }
        if timerFloor && clock != ClockKind.wall.rawValue { throw ValidationError("--timer-floor measures the wall clock's timers: add --clock wall") }
        let kind = try sourceKind()
        if kind != .synthetic && ClockKind(rawValue: clock) == .virtual {
            throw ValidationError("--source \(source.joined(separator: " ")) is a real source and runs in real time: add --clock wall")
        }
        guard Scenario.names.contains(scenario) else {
            throw ValidationError("--scenario must be one of \(Scenario.names.joined(separator: ", ")) (got '\(scenario)')")
        }
        guard Scenario.fixRates.contains(fixRate) else { throw ValidationError("--fix-rate must be from 0.001 (a fix every 1,000 s) to 100 (got \(fixRate))") }
        if let arrivalRate, !(arrivalRate.isFinite && arrivalRate > 0) {
            throw ValidationError("--arrival-rate must be a positive number (got \(arrivalRate))")
        }
        guard ["default", "trickle", "commute"].contains(shape) else {
            throw ValidationError("--shape must be default, trickle or commute (got '\(shape)')")
        }
        guard ReceiverPersona(name: receiver) != nil else { throw ValidationError("--receiver must be mtk, ublox or plain (got '\(receiver)')") }
        if let receiverFault {
            guard ReceiverFault(rawValue: receiverFault) != nil else {
                throw ValidationError(
                    "--receiver-fault must be one of \(ReceiverFault.allCases.map(\.rawValue).joined(separator: ", ")) (got '\(receiverFault)')")
            }
            guard receiver != "plain" else { throw ValidationError("--receiver-fault needs a receiver that takes commands (--receiver mtk or ublox)") }
        }
        guard powerDownRule() != nil else {
            throw ValidationError("--power-down must be restart-aware, restart-aware:TRUST (TRUST in 0.5…1) or linger (got '\(powerDown)')")
        }
        if shape != "default" && arrivalOption != nil { throw ValidationError("--arrival does not apply to --shape \(shape), which sets the arrivals") }
        guard ["onoff", "steady", "burst"].contains(arrival) else { throw ValidationError("--arrival must be onoff, steady or burst (got '\(arrival)')") }
        if arrival == "burst" && arrivalRate != nil { throw ValidationError("--arrival-rate does not apply to --arrival burst") }
        if let geofences {
            guard (1...20_000).contains(geofences) else { throw ValidationError("--geofences must be within 1…20,000 (got \(geofences))") }
            guard fixRate == 1 else { throw ValidationError("--geofences runs at one fix per second: leave out --fix-rate") }
            guard clock == "virtual", submitters == nil, authorization == nil else {
                throw ValidationError("--geofences runs on the virtual clock and cannot be combined with --clock wall, --submitters or --authorization")
            }
        }
        guard (0...1).contains(geofenceFixError) else { throw ValidationError("--geofence-fix-error must be within 0…1 (got \(geofenceFixError))") }
        if geofences == nil {
            // Options of the geofence measurement, given without it, would be ignored without a word.
            let given = [
                ("--geofence-shapes", geofenceShapes != "drive,walk,commute"), ("--geofence-duration", geofenceDuration != "1h"),
                ("--geofence-max-speed", geofenceMaxSpeed != "trajectory"), ("--geofence-responsiveness", geofenceResponsiveness != "0s"),
                ("--geofence-fix-error", geofenceFixError != 1), ("--geofence-curve", geofenceCurve),
            ].filter(\.1).map(\.0)
            if let first = given.first { throw ValidationError("\(first) applies to --geofences N: add it, or leave \(first) out") }
        }
        if severalSources {
            guard geofences == nil, submitters == nil, clock == "virtual", source == ["synthetic"], authorization == nil else {
                throw ValidationError(
                    "--several-sources runs the synthetic receiver on the virtual clock, on its own: it cannot be combined with --geofences, --submitters, --clock wall, --source or --authorization")
            }
        }
        if submitters != nil {
            guard geofences == nil, source == ["synthetic"], authorization == nil else {
                throw ValidationError("--submitters measures submission on fresh engines of its own: it cannot be combined with --geofences, --source or --authorization")
            }
        }
        if let submitters, !(1...64).contains(submitters) { throw ValidationError("--submitters must be within 1…64 (got \(submitters))") }
        if let repeats, !(1...20).contains(repeats) { throw ValidationError("--repeat must be within 1…20 (got \(repeats))") }
        // Checked before the run, which may take minutes, rather than when its figures are written.
        if let json, let problem = Self.unwritable(json) { throw ValidationError("--json \(json): \(problem)") }
        if let report, let problem = Self.unwritable(report) { throw ValidationError("--report \(report): \(problem)") }
        guard (0...1).contains(noTimeoutFraction) else { throw ValidationError("--no-timeout-fraction must be within 0…1 (got \(noTimeoutFraction))") }
        if let baseline, baseline != "naive" && baseline != "none" { throw ValidationError("--baseline must be naive or none (got '\(baseline)')") }
        if baseline == "naive" && authorization != nil {
            throw ValidationError("--authorization cannot be combined with --baseline naive: the naive baseline has no authorization model")
        }
        do throws(LocbenchError) {
            _ = try Mix(parsing: mix)
            _ = try timeoutRange()
            _ = try lingerDuration()
            let model = try arrivalModel()
            try RunBudget(
                operations: requests, expectedSpan: model.expectedSpan(of: requests), expectedOnPeriods: model.expectedOnPeriods(of: requests),
                fixRate: fixRate, wallClock: clock == ClockKind.wall.rawValue
            ).check()
            if let authorization { _ = try AuthorizationScript(parsing: authorization) }
            _ = try GeofenceShape.list(parsing: geofenceShapes)
            _ = try DurationOptions.geofenceDuration(parsing: geofenceDuration)
            _ = try GeofenceSpeed(parsing: geofenceMaxSpeed)
            _ = try DurationOptions.geofenceResponsiveness(parsing: geofenceResponsiveness)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// Why a file could not be written at `path` at the end of the run (a directory, a file or a directory that may
    /// not be written, a directory that does not exist), or `nil`.
    static func unwritable(_ path: String) -> String? {
        let url = URL(fileURLWithPath: path)
        if let values = try? url.resourceValues(forKeys: [.isDirectoryKey]) {
            if values.isDirectory == true { return "it is a directory: name a file" }
            return FileManager.default.isWritableFile(atPath: path) ? nil : "the file may not be written"
        }
        let directory = url.deletingLastPathComponent()
        guard (try? directory.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true else { return "\(directory.path) is no directory" }
        return FileManager.default.isWritableFile(atPath: directory.path) ? nil : "\(directory.path) may not be written"
    }

    /// The parsed `--source`.
    func sourceKind() throws -> SourceKind {
        switch source.first {
        case "synthetic" where source.count == 1:
            return .synthetic
        case "nmea" where source.count == 2:
            var isDirectory: ObjCBool = false
            guard FileManager.default.isReadableFile(atPath: source[1]),
                FileManager.default.fileExists(atPath: source[1], isDirectory: &isDirectory), !isDirectory.boolValue
            else {
                throw ValidationError("--source nmea: cannot read the NMEA log '\(source[1])'\(isDirectory.boolValue ? ": it is a directory" : "")")
            }
            return .nmea(path: source[1])
        case "gpsd" where source.count == 2:
            // The same HOST:PORT syntax as gpsgen's --listen, IPv6 in brackets.
            guard let address = try? ListenAddress(parsing: source[1]), address.port != 0 else {
                throw ValidationError("--source gpsd: expected HOST:PORT with a port in 1...65535, e.g. 127.0.0.1:2947 or [::1]:2947 (got '\(source[1])')")
            }
            return .gpsd(host: address.host, port: address.port)
        case "geoclue" where source.count <= 2:
            let desktopId = source.count == 2 ? source[1] : "locbench"
            guard !desktopId.isEmpty, desktopId.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw ValidationError("--source geoclue: the desktop ID is letters, digits, '-', '_' and '.' (got '\(desktopId)')")
            }
            return .geoclue(desktopId: desktopId)
        default:
            throw ValidationError(
                "--source must be 'synthetic', 'nmea FILE', 'gpsd HOST:PORT' or 'geoclue [DESKTOP_ID]' (got '\(source.joined(separator: " "))')")
        }
    }

    /// The parsed `--timeouts`.
    func timeoutRange() throws(LocbenchError) -> ClosedRange<Duration> { try DurationOptions.timeoutRange(parsing: timeouts) }

    /// The parsed `--arrival`, `--arrival-rate`, `--on-period` and `--off-period`.
    func arrivalModel() throws(LocbenchError) -> ArrivalModel {
        switch shape {
        // One request at a time: an on period of 0.5 s (mostly one arrival) and exponential gaps of mean 3 s, a few
        // times the break-even of a restart from tracking (0.56 s for the MediaTek): many restarts, most worth it.
        case "trickle": return .onOff(OnOffArrivals(rate: arrivalRate ?? 2, meanOn: 0.5, meanOff: 3))
        case "commute": return .commute(CommuteArrivals(rate: arrivalRate ?? 0.5))
        default: break
        }
        switch arrival {
        case "burst": return .burst
        case "steady": return .steady(rate: arrivalRate ?? 1_000)
        default:
            let periods = try DurationOptions.onOffPeriods(on: onPeriod, off: offPeriod)
            return .onOff(OnOffArrivals(rate: arrivalRate ?? max(10, Double(requests) / 200), meanOn: periods.on, meanOff: periods.off))
        }
    }

    /// The parsed `--power-down`.
    func powerDownRule() -> PowerDownRule? {
        if powerDown == "linger" { return .fixedLinger }
        if powerDown == "restart-aware" { return .restartAware }
        let parts = powerDown.split(separator: ":")
        guard parts.count == 2, parts[0] == "restart-aware", let trust = Double(parts[1]), (0.5...1).contains(trust) else { return nil }
        return .restartAware(trust: trust)
    }

    /// Whether the naive design runs beside the engine: asked for, or by default up to 100,000 operations.
    var runsBaseline: Bool { baseline.map { $0 == "naive" } ?? (requests <= 100_000 && authorization == nil) }

    /// Whether the engine also runs as stop-immediately, metered like it, for the receiver-energy
    /// comparison: up to 100,000 operations, as the naive design. Above, the comparison says nothing the
    /// smaller runs do not, and a second full run would double the time and the peak memory.
    var runsStopImmediately: Bool { requests <= 100_000 }

    /// The parsed `--linger`.
    func lingerDuration() throws(LocbenchError) -> Duration { try DurationOptions.linger(parsing: linger) }

    /// The arrival model as the report names it.
    var arrivalDescription: String {
        guard let model = try? arrivalModel() else { return arrival }
        switch model {
        case .burst: return "all-at-once"
        case .steady(let rate): return "steady \(rate.formatted())/s"
        case .onOff(let process) where shape == "trickle":
            return "trickle (\(process.rate.formatted())/s while on, on 0.5 s / off 3 s mean)"
        case .onOff(let process):
            return "on/off Poisson (\(process.rate.formatted())/s while on, on \(onPeriod) / off \(offPeriod) mean)"
        case .commute(let process):
            return "commute (\(process.rate.formatted())/s in windows at 07:30, 08:40, 12:15, 17:30, 21:00)"
        }
    }
}

/// The source a run drives.
enum SourceKind: Equatable {
    case synthetic
    case nmea(path: String)
    case gpsd(host: String, port: Int)
    /// GeoClue2 on the system bus (`DBUS_SYSTEM_BUS_ADDRESS`), as the application `desktopId`.
    case geoclue(desktopId: String)
}
