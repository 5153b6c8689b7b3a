@testable import NMEA

/// Compares decoded epochs with gpsd's TPV reports of the same log and lists every difference that no
/// ``GpsdDeviation`` of the log explains.
struct GpsdComparison {
    /// One line per difference: where, what, ours versus gpsd's.
    private(set) var differences: [String] = []
    /// How many gpsd reports were compared with the decoder's output.
    private(set) var compared = 0
    /// How many differences each deviation explained.
    private(set) var explained: [GpsdDeviation: Int] = [:]

    private let deviations: Set<GpsdDeviation>
    /// Speeds and tracks that ``GpsdDeviation/sentenceAfterLearnedCycleEnd`` may still explain.
    private var leftOutMotion: Int
    /// Values the decoder reported in earlier epochs, for ``GpsdDeviation/valuesFromEarlierCycles``.
    private var earlier = Earlier()

    private struct Earlier {
        var modes: Set<Int> = []
        var values: [String: [Double]] = [:]

        func contains(_ name: String, _ value: Double, tolerance: Double) -> Bool {
            values[name, default: []].contains { abs($0 - value) <= tolerance }
        }

        mutating func remember(_ epoch: NMEAEpoch) {
            modes.insert(epoch.mode.rawValue)
            func keep(_ name: String, _ value: Double?) {
                guard let value else { return }
                values[name, default: []].append(value)
            }
            keep("altMSL", epoch.altitudeMSL)
            keep("altHAE", epoch.altitudeHAE)
            keep("speed", epoch.speed)
            keep("track", epoch.track)
            keep("lat", epoch.latitude)
            keep("lon", epoch.longitude)
            // gpsd keeps the HDOP and applies the current cycle's range error to it.
            if let hdop = epoch.hdop {
                keep("eph", hdop * NMEAEpoch.hdopToHorizontalError)
                keep("eph", hdop * NMEAEpoch.hdopToDifferentialHorizontalError)
            }
        }
    }

    /// The positions each cycle's sentences printed, by time of day in milliseconds.
    private let cyclePositions: [Int: [(Double, Double)]]
    /// Every `$PGRMZ` altitude of the log, metres.
    private let pgrmzAltitudes: [Double]
    /// The previous timed cycle: its time and the positions its sentences and epoch had.
    private var previousCycle: (millis: Int, positions: [(Double, Double)])?

    init(log: String, decoded: Decoded, reports: [GpsdTPV], deviations: Set<GpsdDeviation>) {
        self.deviations = deviations
        leftOutMotion = 2 * decoded.statistics.sentencesAfterTheirEpoch
        cyclePositions = decoded.positions
        pgrmzAltitudes = decoded.pgrmzAltitudes
        let epochs = decoded.epochs
        let timed = GpsdTPV.byTimeOfDay(reports)
        var seen = Set<Int>()
        var previousTime: Double?
        // A time the log repeats (it stepped back) is compared at its last epoch, as gpsd's last report is kept.
        var lastIndex: [Int: Int] = [:]
        for (index, epoch) in epochs.enumerated() {
            if let seconds = epoch.secondsOfDay { lastIndex[Int((seconds * 1000).rounded())] = index }
        }
        for (index, epoch) in epochs.enumerated() {
            defer {
                earlier.remember(epoch)
                for hdop in decoded.gsaHDOPs[index, default: []] { earlier.values["eph", default: []].append(hdop * NMEAEpoch.hdopToHorizontalError) }
                if let seconds = epoch.secondsOfDay {
                    previousTime = seconds
                    let millis = Int((seconds * 1000).rounded())
                    var positions = cyclePositions[millis, default: []]
                    if let latitude = epoch.latitude, let longitude = epoch.longitude { positions.append((latitude, longitude)) }
                    previousCycle = (millis, positions)
                }
            }
            guard let seconds = epoch.secondsOfDay else { continue }
            let millis = Int((seconds * 1000).rounded())
            guard let gpsd = timed[millis], lastIndex[millis] == index, seen.insert(millis).inserted else { continue }
            compared += 1
            let steppedBack = previousTime.map { seconds < $0 } ?? false
            compare(epoch, with: gpsd, at: "\(seconds) s", afterStepBack: steppedBack)
        }
        for millis in timed.keys.sorted() where !seen.contains(millis) {
            differences.append("no epoch at \(Double(millis) / 1000) s (gpsd mode \(timed[millis]!.mode))")
        }
        compareSimulated(epochs: epochs, reports: reports)
    }

    private mutating func accept(_ deviation: GpsdDeviation) -> Bool {
        guard deviations.contains(deviation) else { return false }
        explained[deviation, default: 0] += 1
        return true
    }

    private mutating func compare(_ epoch: NMEAEpoch, with gpsd: GpsdTPV, at place: String, afterStepBack: Bool) {
        if epoch.mode.rawValue != gpsd.mode,
            !(earlier.modes.contains(gpsd.mode) && accept(.valuesFromEarlierCycles))
        {
            differences.append("\(place): mode \(epoch.mode.rawValue) vs gpsd \(gpsd.mode)")
        }
        let millis = Int(((epoch.secondsOfDay ?? 0) * 1000).rounded())
        if let latitude = gpsd.latitude, let longitude = gpsd.longitude, epoch.latitude != nil,
            abs(epoch.latitude! - latitude) > 1e-6 || abs(epoch.longitude! - longitude) > 1e-6,
            cyclePositions[millis, default: []].contains(where: { abs($0.0 - latitude) <= 1e-6 && abs($0.1 - longitude) <= 1e-6 }),
            accept(.reportedBeforeCycleEnd)
        {
        } else {
            check("lat", epoch.latitude, gpsd.latitude, 1e-6, at: place)
            check("lon", epoch.longitude, gpsd.longitude, 1e-6, at: place)
        }
        if let ours = epoch.altitudeMSL, let theirs = gpsd.altitudeMSL, abs(ours - theirs) > 1e-3, abs(ours - theirs) <= 0.1524,
            pgrmzAltitudes.contains(where: { abs($0 - theirs) <= 1e-3 }), accept(.preciseAltitudeOverPGRMZ)
        {
        } else {
            check("altMSL", epoch.altitudeMSL, gpsd.altitudeMSL, 1e-3, at: place)
        }
        if epoch.altitudeHAE == nil, epoch.geoidSeparation == nil, gpsd.altitudeHAE != nil, accept(.noGeoidModel) {
        } else {
            check("altHAE", epoch.altitudeHAE, gpsd.altitudeHAE, 1e-3, at: place)
        }
        let motionMissing = afterStepBack && deviations.contains(.noMotionAcrossTimeStepBack)
        let derivable = derivableMotion(to: millis)
        if epoch.speed == nil, gpsd.speed != nil, motionMissing, accept(.noMotionAcrossTimeStepBack) {
        } else if let speed = gpsd.speed, abs((epoch.speed ?? .infinity) - speed) > 6e-4,
            epoch.speed == nil || epoch.derived.contains(.speed), acceptLeftOutMotion()
        {
        } else if let speed = gpsd.speed, abs((epoch.speed ?? .infinity) - speed) > 6e-4,
            derivable.contains(where: { abs($0.speed - speed) <= 6e-4 }), accept(.reportedBeforeCycleEnd)
        {
        } else {
            check("speed", epoch.speed, gpsd.speed, 6e-4, at: place)
        }
        if epoch.track == nil, gpsd.track != nil, motionMissing, accept(.noMotionAcrossTimeStepBack) {
        } else if let track = gpsd.track, abs((epoch.track ?? .infinity) - track) > 1e-4,
            epoch.track == nil || epoch.derived.contains(.track), acceptLeftOutMotion()
        {
        } else if let track = gpsd.track, abs((epoch.track ?? .infinity) - track) > 1e-4,
            derivable.contains(where: { abs($0.track - track) <= 1e-4 })
                // gpsd saw no movement between its two reports (derived speed 0), so its track is not a
                // bearing between them; the decoder's, derived over the whole cycle, is.
                || (gpsd.speed == 0 && epoch.derived.contains(.track) && derivable.contains(where: { $0.speed == 0 })),
            accept(.reportedBeforeCycleEnd)
        {
        } else {
            check("track", epoch.track, gpsd.track, 1e-4, at: place)
        }
        let usesReceiverEstimate = epoch.horizontalAccuracy != epoch.hdopHorizontalError
        if usesReceiverEstimate, deviations.contains(.receiverErrorEstimates), let eph = gpsd.eph,
            let ours = epoch.hdopHorizontalError, abs(ours - eph) <= 0.01 || earlier.contains("eph", eph, tolerance: 0.01)
        {
            _ = accept(.receiverErrorEstimates)
        } else {
            check("eph", epoch.horizontalAccuracy, gpsd.eph, 0.01, at: place)
        }
    }

    /// Accepts one speed or track under ``GpsdDeviation/sentenceAfterLearnedCycleEnd`` while the sentences
    /// the decoder left out can explain one more.
    private mutating func acceptLeftOutMotion() -> Bool {
        guard leftOutMotion > 0, accept(.sentenceAfterLearnedCycleEnd) else { return false }
        leftOutMotion -= 1
        return true
    }

    /// Speeds and tracks gpsd may have derived for the cycle at `millis`: from a position of the previous
    /// cycle to a position of this one (only under ``GpsdDeviation/reportedBeforeCycleEnd``).
    private func derivableMotion(to millis: Int) -> [(speed: Double, track: Double)] {
        guard deviations.contains(.reportedBeforeCycleEnd), let previous = previousCycle, previous.millis < millis else { return [] }
        let elapsed = Double(millis - previous.millis) / 1000
        var result: [(speed: Double, track: Double)] = []
        for from in previous.positions {
            for to in cyclePositions[millis, default: []] {
                let (distance, bearing) = NMEAMotion.geodesic(from: from, to: to)
                result.append((distance / elapsed, bearing))
            }
        }
        return result
    }

    /// Records a difference unless the values agree within `tolerance` or gpsd's is an earlier cycle's.
    private mutating func check(_ name: String, _ ours: Double?, _ theirs: Double?, _ tolerance: Double, at place: String) {
        guard let theirs else { return }
        if let ours, abs(ours - theirs) <= tolerance { return }
        if earlier.contains(name, theirs, tolerance: tolerance), accept(.valuesFromEarlierCycles) { return }
        differences.append("\(place): \(name) \(ours.map { "\($0)" } ?? "nil") vs gpsd \(theirs)")
    }

    /// gpsd's simulated fixes carry no time, so they are compared apart: the decoder must report none of them.
    private mutating func compareSimulated(epochs: [NMEAEpoch], reports: [GpsdTPV]) {
        let simulated = reports.filter { $0.status == 8 && $0.mode >= 2 }
        guard !simulated.isEmpty else { return }
        compared += simulated.count
        let fixes = epochs.filter { $0.mode == .twoD || $0.mode == .threeD }
        if !fixes.isEmpty {
            differences.append("\(fixes.count) fixes where gpsd's \(simulated.count) are simulated")
        } else if !accept(.simulatedFixIsNoFix) {
            differences.append("no fix for gpsd's \(simulated.count) simulated fixes")
        }
    }
}

extension GpsdComparison {
    /// A log decoded, with what its sentences printed beyond the epochs.
    struct Decoded {
        var epochs: [NMEAEpoch] = []
        /// Positions printed by the timed sentences, by time of day in milliseconds.
        var positions: [Int: [(Double, Double)]] = [:]
        /// `$PGRMZ` altitudes in metres.
        var pgrmzAltitudes: [Double] = []
        /// GSA HDOPs by the index of the epoch that was open when they came.
        var gsaHDOPs: [Int: [Double]] = [:]
        var statistics = NMEADecoderStatistics()
    }

    /// Decodes `bytes`, observing every sentence as well as the epochs.
    static func decode(_ bytes: [UInt8]) -> Decoded {
        var decoder = NMEAStreamDecoder()
        var result = Decoded()
        bytes.withUnsafeBytes { buffer in
            decoder.feed(buffer, onSentence: { sentence in
                let position: (Double?, Double?)
                switch sentence.body {
                case .gga(let gga): position = (gga.latitude, gga.longitude)
                case .rmc(let rmc): position = (rmc.latitude, rmc.longitude)
                case .gll(let gll): position = (gll.latitude, gll.longitude)
                case .gns(let gns): position = (gns.latitude, gns.longitude)
                case .pgrmz(let pgrmz):
                    if let altitude = pgrmz.altitudeMSL { result.pgrmzAltitudes.append(altitude) }
                    return
                case .gsa(let gsa):
                    if let hdop = gsa.hdop { result.gsaHDOPs[result.epochs.count, default: []].append(hdop) }
                    return
                default: return
                }
                guard let time = sentence.timeOfDay, let latitude = position.0, let longitude = position.1 else { return }
                result.positions[Int((time.seconds * 1000).rounded()), default: []].append((latitude, longitude))
            }, onEpoch: { result.epochs.append($0) })
        }
        decoder.finish { result.epochs.append($0) }
        result.statistics = decoder.statistics
        return result
    }
}
