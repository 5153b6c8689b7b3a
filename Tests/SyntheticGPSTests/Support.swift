import LocationEngine
@testable import SyntheticGPS

/// Runs `receiver` until `elapsed` seconds and returns the epochs before it.
func epochs(_ receiver: inout SyntheticReceiver, until elapsed: Double) -> [SyntheticEpoch] {
    var result: [SyntheticEpoch] = []
    while let due = receiver.nextEpochTime, due < elapsed, let epoch = receiver.nextEpoch() {
        result.append(epoch)
    }
    return result
}

/// Epochs of a fresh receiver for `scenario` in `mode`, up to `elapsed` seconds.
func epochs(_ scenario: Scenario, mode: PowerMode = .best, until elapsed: Double) -> [SyntheticEpoch] {
    var receiver = SyntheticReceiver(scenario: scenario, mode: mode)
    return epochs(&receiver, until: elapsed)
}

/// Horizontal distance in metres between two points (local flat approximation, fine below a few km).
func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
    let (m, n) = WGS84.radii(latitude: a.0 * Math.radians)
    let north = (b.0 - a.0) * Math.radians * m
    let east = (b.1 - a.1) * Math.radians * n * Math.cos(a.0 * Math.radians)
    return (north * north + east * east).squareRoot()
}

/// Smallest absolute difference between two angles in degrees.
func angleDifference(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
}
