import NMEA

/// Compares decoded epochs with gpsd's TPV reports of the same log and lists every difference.
struct GpsdComparison {
    /// One line per difference: where, what, ours versus gpsd's.
    private(set) var differences: [String] = []
    /// How many gpsd reports were compared with an epoch.
    private(set) var compared = 0

    init(log: String, epochs: [NMEAEpoch], reports: [GpsdTPV], deviations: Set<GpsdDeviation>) {
        let timed = GpsdTPV.byTimeOfDay(reports)
        var seen = Set<Int>()
        var previous: NMEAEpoch?
        for epoch in epochs {
            defer { previous = epoch }
            guard let seconds = epoch.secondsOfDay else { continue }
            let millis = Int((seconds * 1000).rounded())
            guard let gpsd = timed[millis], seen.insert(millis).inserted else { continue }
            compared += 1
            let eph = deviations.contains(.ephLagsOneEpoch) ? (previous.map { $0.horizontalAccuracy } ?? gpsd.eph) : epoch.horizontalAccuracy
            compare(epoch, eph: eph, with: gpsd, at: "\(seconds) s")
        }
        for millis in timed.keys.sorted() where !seen.contains(millis) {
            differences.append("no epoch at \(Double(millis) / 1000) s (gpsd mode \(timed[millis]!.mode))")
        }
    }

    private mutating func compare(_ epoch: NMEAEpoch, eph: Double?, with gpsd: GpsdTPV, at place: String) {
        func check(_ name: String, _ ours: Double?, _ theirs: Double?, _ tolerance: Double) {
            guard let theirs else { return }
            if let ours, abs(ours - theirs) <= tolerance { return }
            differences.append("\(place): \(name) \(ours.map { "\($0)" } ?? "nil") vs gpsd \(theirs)")
        }
        if epoch.mode.rawValue != gpsd.mode {
            differences.append("\(place): mode \(epoch.mode.rawValue) vs gpsd \(gpsd.mode)")
        }
        check("lat", epoch.latitude, gpsd.latitude, 1e-6)
        check("lon", epoch.longitude, gpsd.longitude, 1e-6)
        check("altMSL", epoch.altitudeMSL, gpsd.altitudeMSL, 1e-3)
        check("altHAE", epoch.altitudeHAE, gpsd.altitudeHAE, 1e-3)
        check("speed", epoch.speed, gpsd.speed, 6e-4)
        check("track", epoch.track, gpsd.track, 1e-4)
        check("eph", eph, gpsd.eph, 0.01)
    }
}
