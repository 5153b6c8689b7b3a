import NMEA

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

    init(log: String, epochs: [NMEAEpoch], positions: [Int: [(Double, Double)]], reports: [GpsdTPV], deviations: Set<GpsdDeviation>) {
        self.deviations = deviations
        cyclePositions = positions
        let timed = GpsdTPV.byTimeOfDay(reports)
        var seen = Set<Int>()
        var previousTime: Double?
        for epoch in epochs {
            defer {
                earlier.remember(epoch)
                if let seconds = epoch.secondsOfDay { previousTime = seconds }
            }
            guard let seconds = epoch.secondsOfDay else { continue }
            let millis = Int((seconds * 1000).rounded())
            guard let gpsd = timed[millis], seen.insert(millis).inserted else { continue }
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
            accept(.latestPositionOfCycle)
        {
        } else {
            check("lat", epoch.latitude, gpsd.latitude, 1e-6, at: place)
            check("lon", epoch.longitude, gpsd.longitude, 1e-6, at: place)
        }
        check("altMSL", epoch.altitudeMSL, gpsd.altitudeMSL, 1e-3, at: place)
        if epoch.altitudeHAE == nil, epoch.geoidSeparation == nil, gpsd.altitudeHAE != nil, accept(.noGeoidModel) {
        } else {
            check("altHAE", epoch.altitudeHAE, gpsd.altitudeHAE, 1e-3, at: place)
        }
        let motionMissing = afterStepBack && deviations.contains(.noMotionAcrossTimeStepBack)
        if epoch.speed == nil, gpsd.speed != nil, motionMissing, accept(.noMotionAcrossTimeStepBack) {
        } else {
            check("speed", epoch.speed, gpsd.speed, 6e-4, at: place)
        }
        if epoch.track == nil, gpsd.track != nil, motionMissing, accept(.noMotionAcrossTimeStepBack) {
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
    /// Decodes `bytes` and collects the epochs and, per time of day, the positions its sentences printed.
    static func decode(_ bytes: [UInt8]) -> (epochs: [NMEAEpoch], positions: [Int: [(Double, Double)]], decoder: NMEAStreamDecoder) {
        var decoder = NMEAStreamDecoder()
        var epochs: [NMEAEpoch] = []
        var positions: [Int: [(Double, Double)]] = [:]
        bytes.withUnsafeBytes { buffer in
            decoder.feed(buffer, onSentence: { sentence in
                let position: (Double?, Double?)
                switch sentence.body {
                case .gga(let gga): position = (gga.latitude, gga.longitude)
                case .rmc(let rmc): position = (rmc.latitude, rmc.longitude)
                case .gll(let gll): position = (gll.latitude, gll.longitude)
                case .gns(let gns): position = (gns.latitude, gns.longitude)
                default: return
                }
                guard let time = sentence.timeOfDay, let latitude = position.0, let longitude = position.1 else { return }
                positions[Int((time.seconds * 1000).rounded()), default: []].append((latitude, longitude))
            }, onEpoch: { epochs.append($0) })
        }
        decoder.finish { epochs.append($0) }
        return (epochs, positions, decoder)
    }
}
