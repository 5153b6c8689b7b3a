@_spi(Internals) import LocationEngine
import NMEA
import SyntheticGPS
import Testing
@testable import LocationSources

/// Accuracy scales, the epoch converter and the replay pacer.
struct ConversionTests {
    @Test func theSyntheticAccuracySurvivesTheRoundTripThroughNMEA() throws {
        // The synthetic receiver states a 68 % radius, writes GST per-axis σ; the NMEA epoch reports
        // 2DRMS; the converter must give back the receiver's 68 % radius.
        let stream = SyntheticStream(count: 40)
        var converter = NMEAEpochConverter(unmeasuredAccuracy: .skip)
        var decoder = NMEAStreamDecoder()
        var delivered: [Location] = []
        decoder.feed(Array(stream.blocks.joined().utf8)) { epoch in
            if case .fix(let fix) = converter.convert(epoch) { delivered.append(fix) }
        }
        decoder.finish { epoch in
            if case .fix(let fix) = converter.convert(epoch) { delivered.append(fix) }
        }
        let expected = stream.fixesByTime
        #expect(delivered.count == expected.count)
        #expect(delivered.count > 20)
        for fix in delivered {
            let time = try #require(fix.utcTime)
            let truth = try #require(expected[time])
            #expect(samePosition(fix, truth))
            #expect(abs(fix.horizontalAccuracy - truth.horizontalAccuracy) <= 0.02 * truth.horizontalAccuracy + 0.01)
        }
    }

    @Test func derivedMotionIsMarkedInTheFix() throws {
        var epoch = NMEAEpoch()
        (epoch.mode, epoch.latitude, epoch.longitude, epoch.hdop, epoch.secondsOfDay) = (.twoD, 1, 2, 1, 5)
        epoch.speed = 3
        var converter = NMEAEpochConverter(unmeasuredAccuracy: .skip)
        let first = converter.convert(epoch)
        guard case .fix(let measured) = first else { throw ConversionFailure(outcome: "\(first)") }
        #expect(!measured.motionIsDerived)
        epoch.secondsOfDay = 6
        epoch.derived = [.speed]
        let second = converter.convert(epoch)
        guard case .fix(let derived) = second else { throw ConversionFailure(outcome: "\(second)") }
        #expect(derived.motionIsDerived && derived.speed == 3)
    }

    @Test func aRepeatedEpochIsConvertedOnce() {
        var epoch = datedThreeDEpoch()
        epoch.hdop = 1
        var converter = NMEAEpochConverter(unmeasuredAccuracy: .skip)
        guard case .fix(let fix) = converter.convert(epoch) else {
            Issue.record("no fix")
            return
        }
        #expect(abs(fix.horizontalAccuracy - 19 * AccuracyConversion.twoDRMSToRadius68) < 1e-9)
        #expect(converter.convert(epoch) == .duplicate)
        epoch.hdop = nil
        epoch.secondsOfDay = 6
        #expect(converter.convert(epoch) == .noAccuracy)
        // By default the same epoch is delivered, its radius assumed from its mode and marked.
        var estimating = NMEAEpochConverter(unmeasuredAccuracy: .typical)
        guard case .fix(let assumed) = estimating.convert(epoch) else {
            Issue.record("no fix with an assumed accuracy")
            return
        }
        #expect(assumed.horizontalAccuracyIsEstimated && !fix.horizontalAccuracyIsEstimated)
        #expect(assumed.horizontalAccuracy == (epoch.mode == .threeD ? 1.5 : 4) * 19 * AccuracyConversion.twoDRMSToRadius68)
        #expect(NMEAStreamConfiguration(endpoint: .standardInput).unmeasuredAccuracy == .typical)
        epoch.mode = .noFix
        #expect(converter.convert(epoch) == .noFix)
    }

    @Test func anErrorEstimateBeyondAnyDistanceOnEarthMakesTheFixInvalidNotAssumed() {
        var epoch = datedThreeDEpoch()
        epoch.estimatedHorizontalError = 1e300
        var converter = NMEAEpochConverter(unmeasuredAccuracy: .typical)
        #expect(converter.convert(epoch) == .invalid, "not delivered with an assumed accuracy either")
        epoch.estimatedHorizontalError = AccuracyConversion.largestHorizontalError
        guard case .fix(let fix) = converter.convert(epoch) else {
            Issue.record("an error of half the equator is still a (useless) measurement")
            return
        }
        #expect(!fix.horizontalAccuracyIsEstimated)
        #expect(AccuracyConversion.radius68(twoDRMS: AccuracyConversion.largestHorizontalError.nextUp) == nil)
        #expect(AccuracyConversion.radius68(epx: 3, epy: 1e300) == nil)
    }

    @Test func aDateThatDoesNotExistHasNoTime() {
        var epoch = NMEAEpoch()
        (epoch.year, epoch.month, epoch.day, epoch.secondsOfDay) = (2024, 2, 29, 0)
        #expect(epoch.unixTime == 1_709_164_800, "2024 is a leap year")
        epoch.day = 30
        #expect(epoch.unixTime == nil)
        (epoch.year, epoch.month, epoch.day) = (2023, 2, 29)
        #expect(epoch.unixTime == nil)
        (epoch.month, epoch.day) = (4, 31)
        #expect(epoch.unixTime == nil)
    }

    @Test func thePacerKeepsTheRecordedRhythmAndSkipsLongGaps() {
        var pacer = EpochPacer(speed: 2, maximumGap: .seconds(10))
        #expect(pacer.due(recordedAt: 100, now: .seconds(50)) == .seconds(50))
        #expect(pacer.due(recordedAt: 101, now: .seconds(50)) == .milliseconds(50_500))
        #expect(pacer.due(recordedAt: nil, now: .seconds(50)) == .milliseconds(50_500), "untimed: with the previous one")
        #expect(pacer.due(recordedAt: 103, now: .seconds(50)) == .milliseconds(51_500))
        #expect(pacer.due(recordedAt: 500, now: .seconds(50)) == .milliseconds(51_500), "a gap beyond the maximum plays at once")
        #expect(pacer.due(recordedAt: 400, now: .seconds(60)) == .seconds(60), "time running backwards re-anchors")
        #expect(pacer.due(recordedAt: 401, now: .seconds(70)) == .seconds(70), "late: played at once, never in the past")
        // Midnight without a date: 86399 → 0 is one second.
        var daily = EpochPacer(speed: 1, maximumGap: .seconds(10))
        _ = daily.due(recordedAt: 86_399, now: .zero)
        #expect(daily.due(recordedAt: 0, now: .zero) == .seconds(1))
        // However slow the speed, no wait is longer than a day (1e20 s trapped in the timer's arithmetic).
        for speed in [1e-20, Double.leastNonzeroMagnitude] {
            var slow = EpochPacer(speed: speed, maximumGap: .seconds(10))
            _ = slow.due(recordedAt: 0, now: .zero)
            #expect(slow.due(recordedAt: 1, now: .zero) == .seconds(EpochPacer.longestWait))
        }
    }

    @Test func aTimeoutBeyondAnyTimerIsClampedNotWrappedOrTrapped() {
        #expect(Duration.seconds(1e19).saturatingNanoseconds == .max, "beyond 2^63 seconds: components would trap")
        #expect((Duration.nanoseconds(Int64.max) + .nanoseconds(1)).saturatingNanoseconds == .max, "wrapped to Int64.min before")
        #expect((Duration.seconds(-1e19)).saturatingNanoseconds == .min)
        #expect(Duration.milliseconds(1500).saturatingNanoseconds == 1_500_000_000)
    }

    @Test func aReconnectPolicyWithNoDelayStillWaitsBetweenRetries() {
        let eager = ReconnectPolicy(initialDelay: .zero, maximumDelay: .zero, giveUpAfter: nil)
        #expect(eager.delay(afterFailures: 1) == .zero, "the first retry at once")
        #expect((2...70).allSatisfy { eager.delay(afterFailures: $0) >= ReconnectPolicy.smallestBackoff }, "never a busy loop")
        // Set later, the delays are bounded as at init: the maximum no lower than the initial delay then.
        var changed = ReconnectPolicy()
        changed.maximumDelay = .seconds(-1)
        changed.initialDelay = .seconds(-5)
        #expect(changed.initialDelay == .zero && changed.maximumDelay == .milliseconds(250))
        #expect(changed.delay(afterFailures: 1) == .zero)
        #expect(changed.delay(afterFailures: 5) == ReconnectPolicy.smallestBackoff * 16)
    }

    @Test func aCourseOf360IsNorth() {
        var epoch = datedThreeDEpoch()
        epoch.estimatedHorizontalError = 5
        epoch.track = 360
        var converter = NMEAEpochConverter(unmeasuredAccuracy: .typical)
        guard case .fix(let fix) = converter.convert(epoch) else {
            Issue.record("no fix")
            return
        }
        #expect(fix.course == 0)
    }
}

/// A 3D fix at (1°, 2°) on 2024-01-01 at 00:00:05 UTC, without any error estimate.
private func datedThreeDEpoch() -> NMEAEpoch {
    var epoch = NMEAEpoch()
    (epoch.mode, epoch.latitude, epoch.longitude) = (.threeD, 1, 2)
    (epoch.year, epoch.month, epoch.day, epoch.secondsOfDay) = (2024, 1, 1, 5)
    return epoch
}

/// An epoch that should have converted to a fix did not.
private struct ConversionFailure: Error {
    var outcome: String
}
