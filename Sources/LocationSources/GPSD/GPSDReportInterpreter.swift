import Foundation
import LocationEngine
import NIOCore

/// Turns gpsd's JSON lines into fixes, pure and synchronous: no I/O, no clock, no locks. Counts
/// everything it skips in ``statistics``.
struct GPSDReportInterpreter: Sendable {
    /// What one line amounted to.
    enum Outcome: Sendable, Equatable {
        /// A new fix for the engine.
        case fix(Location)
        /// A TPV without a fix (mode 0 or 1).
        case noFix
        /// A repeat of a fix already delivered in this session.
        case duplicate
        /// A fix that arrived while no session was open (after the source was stopped).
        case stale
        /// gpsd complained (an `ERROR` report), with its message.
        case gpsdError(String)
        /// A DEVICES report listing this many devices, with the paths of those gpsd has identified (a driver named).
        case devices(Int, identified: [String])
        /// A DEVICE report: gpsd identified the device at this path (a driver named).
        case deviceIdentified(String)
        /// A report that needs nothing done (VERSION, WATCH, SKY, …).
        case ignored
        /// The line was skipped for `reason` and counted.
        case skipped(SkipReason)
    }

    /// Why a line was skipped.
    enum SkipReason: String, Sendable, CaseIterable {
        case oversizedLine, malformedReport, unexpectedClass, invalidValue, noAccuracy
    }

    /// Report classes gpsd sends that carry nothing for the source (gpsd_json(5)).
    static let ignoredClasses: Set<String> = [
        "VERSION", "WATCH", "DEVICE", "SKY", "GST", "ATT", "IMU", "PPS", "TOFF", "OSC", "POLL",
        "RAW", "AIS", "SUBFRAME", "RTCM2", "RTCM3",
    ]

    private(set) var statistics = GPSDStatistics()
    /// The device the last TPV named, `nil` when it named none.
    private(set) var lastReportDevice: String?
    /// The fixes of this session, for de-duplication; a new session starts with none.
    private var recent = RecentFixTimes()
    /// The position of the last fix delivered without a time, and when it arrived.
    private var lastUntimed: (latitude: Double, longitude: Double, at: Duration)?
    /// How soon after an untimed fix the same position again is taken as gpsd repeating it (a report sent again
    /// in one burst: on a new watch, to a second client's poll) rather than a receiver that has not moved:
    /// shorter than the cycle of a 20 Hz receiver.
    static let untimedRepeatWindow = Duration.milliseconds(40)
    /// Whether a session is open: fixes outside one are stale.
    private var inSession: Bool
    private let decoder = JSONDecoder()
    private let unmeasuredAccuracy: UnmeasuredAccuracy

    /// Creates an interpreter; fixes without an error estimate are treated as `unmeasuredAccuracy` says.
    /// With `inSession` false, fixes are stale until ``startSession()``.
    init(unmeasuredAccuracy: UnmeasuredAccuracy, inSession: Bool = true) {
        self.unmeasuredAccuracy = unmeasuredAccuracy
        self.inSession = inSession
    }

    /// A session starts (the source was started): fixes of earlier sessions no longer count as
    /// duplicates, so a stream that replays (a looping gpsfake, a restarted gpsd, a receiver whose
    /// clock was reset) is delivered again. Counters are kept.
    mutating func startSession() {
        recent = RecentFixTimes()
        lastUntimed = nil
        inSession = true
    }

    /// The session ended (the source was stopped): fixes still arriving are stale.
    mutating func endSession() { inSession = false }

    /// Counts a connection on which gpsd answered.
    mutating func connected() { statistics.connections += 1 }

    /// Counts a lost connection.
    mutating func disconnected() { statistics.disconnections += 1 }

    /// Counts a receiver command that could not be sent (no connection).
    mutating func receiverCommandNotSent() { statistics.receiverCommandsNotSent += 1 }

    /// Counts a line that was too long to keep.
    mutating func oversizedLine() -> Outcome {
        statistics.lines += 1
        return skip(.oversizedLine)
    }

    /// Interprets one line (without terminator) that arrived at `now` (any monotonic time).
    /// - Complexity: O(n) in the line length.
    mutating func interpret(line: ByteBuffer, now: Duration) -> Outcome {
        statistics.lines += 1
        let report: GPSDReport
        do {
            report = try decoder.decode(GPSDReport.self, from: Data(line.readableBytesView))
        } catch {
            return skip(.malformedReport)
        }
        if report.class == "TPV" || report.class == "ERROR" || report.class == "DEVICES" || Self.ignoredClasses.contains(report.class) {
            statistics.reportsByClass[report.class, default: 0] += 1
        }
        switch report.class {
        case "TPV":
            lastReportDevice = report.device
            return tpv(report, now: now)
        case "ERROR":
            statistics.errorReports += 1
            return .gpsdError(report.message ?? "(no message)")
        case "DEVICES":
            let devices = report.devices ?? []
            return .devices(devices.count, identified: devices.compactMap { $0.driver?.isEmpty == false ? $0.path : nil })
        case "DEVICE":
            guard let path = report.path, report.driver?.isEmpty == false else { return .ignored }
            return .deviceIdentified(path)
        case let name where Self.ignoredClasses.contains(name):
            return .ignored
        default:
            return skip(.unexpectedClass)
        }
    }

    private mutating func skip(_ reason: SkipReason) -> Outcome {
        switch reason {
        case .oversizedLine: statistics.oversizedLines += 1
        case .malformedReport: statistics.malformedReports += 1
        case .unexpectedClass: statistics.unexpectedClasses += 1
        case .invalidValue: statistics.invalidValues += 1
        case .noAccuracy: statistics.fixesWithoutAccuracy += 1
        }
        return .skipped(reason)
    }

    private mutating func tpv(_ report: GPSDReport, now: Duration) -> Outcome {
        guard let mode = report.mode, (0...3).contains(mode) else { return skip(.invalidValue) }
        guard mode >= 2 else {
            statistics.noFixReports += 1
            return .noFix
        }
        guard let latitude = report.lat, let longitude = report.lon, latitude.isFinite, longitude.isFinite,
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { return skip(.invalidValue) }
        var time: Double?
        if let text = report.time {
            guard let parsed = GPSDTime.unixTime(text) else { return skip(.invalidValue) }
            time = parsed
        }
        // An error estimate that is there but means nothing (negative, beyond any distance on Earth)
        // makes the fix suspect: it is skipped, not given an assumed accuracy. An error of 0 is no estimate,
        // as in NMEA: gpsd multiplies the receiver's DOP by its error model, and a receiver that prints
        // `0.0` for a DOP it does not know gets an `eph` of 0, which no receiver measures.
        let eph = report.eph == 0 ? nil : report.eph
        let perAxisGiven = report.epx != nil && report.epy != nil && !(report.epx == 0 && report.epy == 0)
        let measured: Double?
        if eph != nil {
            guard let radius = AccuracyConversion.radius68(twoDRMS: eph) else { return skip(.invalidValue) }
            measured = radius
        } else if perAxisGiven {
            guard let radius = AccuracyConversion.radius68(epx: report.epx, epy: report.epy) else { return skip(.invalidValue) }
            measured = radius
        } else {
            measured = nil
        }
        guard let accuracy = measured ?? unmeasuredAccuracy.radius(threeD: mode == 3) else { return skip(.noAccuracy) }

        var location = Location(latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, utcTime: time)
        location.horizontalAccuracyIsEstimated = measured == nil
        location.altitude = checked(report.altMSL ?? report.alt) { abs($0) < 1e6 }
        location.ellipsoidalAltitude = checked(report.altHAE) { abs($0) < 1e6 }
        location.verticalAccuracy = checked(report.epv) { $0 >= 0 }.flatMap { $0 == 0 ? nil : AccuracyConversion.vertical68(vertical95: $0) }
        location.speed = checked(report.speed) { $0 >= 0 && $0 < 1e5 }
        location.course = checked(report.track) { _ in true }.map { track in
            let wrapped = track.truncatingRemainder(dividingBy: 360)
            return wrapped < 0 ? wrapped + 360 : wrapped
        }

        guard inSession else {
            statistics.staleFixes += 1
            return .stale
        }
        if let time {
            guard recent.insert(time) else {
                statistics.duplicateFixes += 1
                return .duplicate
            }
            lastUntimed = nil
        } else {
            // The first reports of a session may carry no time, nor do a few receivers' at all: the same
            // position again is a repeat only within the window of one burst; later it is a new fix of a
            // receiver that has not moved.
            if let last = lastUntimed, last.latitude == latitude, last.longitude == longitude, now - last.at < Self.untimedRepeatWindow {
                statistics.duplicateFixes += 1
                return .duplicate
            }
            lastUntimed = (latitude, longitude, now)
        }
        statistics.fixesDelivered += 1
        if location.horizontalAccuracyIsEstimated { statistics.fixesWithAssumedAccuracy += 1 }
        return .fix(location)
    }

    /// `value` when it is finite and passes `isPlausible`; otherwise `nil`, counting a present but bad value.
    private mutating func checked(_ value: Double?, _ isPlausible: (Double) -> Bool) -> Double? {
        guard let value else { return nil }
        guard value.isFinite, isPlausible(value) else {
            statistics.droppedFields += 1
            return nil
        }
        return value
    }
}
