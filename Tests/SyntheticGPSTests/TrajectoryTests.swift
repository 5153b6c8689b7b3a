import Testing
@testable import SyntheticGPS

@Suite struct TrajectoryTests {
    /// Truth sampled every second for `seconds`.
    private func truth(_ scenario: Scenario, seconds: Int) -> [TruthState] {
        epochs(scenario, until: Double(seconds)).map(\.truth)
    }

    @Test func stationaryNeverMoves() {
        let samples = truth(.stationary(seed: 1), seconds: 600)
        let origin = Scenario.stationary(seed: 1).origin
        for sample in samples {
            #expect(sample.speed == 0)
            #expect(sample.latitude == origin.latitude && sample.longitude == origin.longitude)
        }
    }

    @Test func walkingHasPedestrianSpeedsStopsAndTurns() {
        let samples = truth(.walk(seed: 3), seconds: 3600)
        let speeds = samples.map(\.speed)
        let moving = speeds.filter { $0 > 0.5 }
        let meanMoving = moving.reduce(0, +) / Double(moving.count)
        #expect(meanMoving > 1.1 && meanMoving < 1.6)
        #expect(speeds.max()! <= 1.6 * 1.08 + 1e-9)
        #expect(speeds.filter { $0 == 0 }.count > 60, "a pedestrian waits at crossings")
        let headings = Set(samples.map { Int($0.course / 45) })
        #expect(headings.count >= 6, "an hour of city blocks points in most directions")
    }

    @Test func drivingRespectsAccelerationLimitsAndStops() {
        let samples = truth(.drive(seed: 11), seconds: 3600)
        var stops = 0
        for (previous, next) in zip(samples, samples.dropFirst()) {
            let acceleration = next.speed - previous.speed
            #expect(acceleration <= MotionProfile.driving.acceleration + 1e-9)
            #expect(acceleration >= -2 * MotionProfile.driving.deceleration - 1e-9)
            if previous.speed > 0, next.speed == 0 { stops += 1 }
            // Position change agrees with the speeds (trapezoid over one second, within 1 m).
            let travelled = distance((previous.latitude, previous.longitude), (next.latitude, next.longitude))
            #expect(travelled <= max(previous.speed, next.speed) + 0.5)
        }
        #expect(stops >= 5, "lights and stop signs in an hour of driving")
        let top = samples.map(\.speed).max()!
        #expect(top > 15 && top < 80 / 3.6 * 1.07)
    }

    /// Beside a pole (the most the command line allows), a metre east is thousands of degrees of longitude:
    /// every position is still a coordinate.
    @Test func aDriveBesideAPoleStaysOnTheGlobe() {
        for seed in UInt64(1)...8 {
            var scenario = Scenario.drive(seed: seed)
            scenario.origin = Coordinate(latitude: 89.999, longitude: 0)
            let samples = truth(scenario, seconds: 900)
            #expect(samples.allSatisfy { (-90...90).contains($0.latitude) })
            let outside = samples.filter { !(-180..<180).contains($0.longitude) }
            #expect(outside.count == 0, "seed \(seed): \(outside.count) longitudes off the globe, e.g. \(outside.first?.longitude ?? 0)")
        }
    }

    @Test func turnsAreSmoothWhenDriving() {
        let samples = truth(.drive(seed: 12), seconds: 1800)
        for (previous, next) in zip(samples, samples.dropFirst()) where previous.speed > 1 {
            let turn = angleDifference(previous.course, next.course)
            // Lateral acceleration v·ω stays near the profile's limit (v²/R ≤ 2.5 m/s²).
            let omega = turn * Math.radians
            #expect(omega * min(previous.speed, next.speed) < 3.5, "turned \(turn)° in a second at \(previous.speed) m/s")
        }
    }

    @Test func waypointsAreFollowedToTheEnd() {
        let points = [
            Coordinate(latitude: 52.5200, longitude: 13.4050),
            Coordinate(latitude: 52.5245, longitude: 13.4050),
            Coordinate(latitude: 52.5245, longitude: 13.4120),
        ]
        let scenario = Scenario(name: "route", motion: .waypoints(points, .driving), seed: 1)
        let samples = truth(scenario, seconds: 600)
        let last = samples.last!
        #expect(last.speed == 0)
        #expect(distance((last.latitude, last.longitude), (points[2].latitude, points[2].longitude)) < 15)
        // It went north first, then east.
        #expect(angleDifference(samples[30].course, 0) < 5)
        #expect(samples.contains { angleDifference($0.course, 90) < 5 && $0.speed > 5 })
    }

    @Test func sameSeedSameRoute() {
        #expect(truth(.drive(seed: 99), seconds: 300) == truth(.drive(seed: 99), seconds: 300))
        #expect(truth(.drive(seed: 99), seconds: 300) != truth(.drive(seed: 98), seconds: 300))
    }
}
