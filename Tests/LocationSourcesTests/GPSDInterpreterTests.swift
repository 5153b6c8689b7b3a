import LocationEngine
import NIOCore
import Testing
@testable import LocationSources

/// gpsd's JSON to fixes, line by line.
struct GPSDInterpreterTests {
    private func run(_ lines: [String], unmeasured: UnmeasuredAccuracy = .skip) -> ([GPSDReportInterpreter.Outcome], GPSDStatistics) {
        var interpreter = GPSDReportInterpreter(unmeasuredAccuracy: unmeasured)
        // Lines a millisecond apart, as in one burst.
        let outcomes = lines.enumerated().map { interpreter.interpret(line: ByteBuffer(string: $0.element), now: .milliseconds(Int64($0.offset))) }
        return (outcomes, interpreter.statistics)
    }

    @Test func aTPVBecomesAFixWithTheEngineAccuracyScale() throws {
        let line = #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2034-08-16T03:07:19.500Z","lat":-37.784788333,"#
            + #""lon":175.314896667,"altHAE":83.6,"altMSL":59.9,"epv":34.5,"track":181.39,"speed":0.355,"eph":20.9}"#
        let (outcomes, statistics) = run([line])
        guard case .fix(let fix) = outcomes.first else {
            Issue.record("no fix: \(outcomes)")
            return
        }
        #expect(fix.latitude == -37.784788333 && fix.longitude == 175.314896667)
        #expect(fix.altitude == 59.9 && fix.ellipsoidalAltitude == 83.6)
        #expect(fix.speed == 0.355 && fix.course == 181.39)
        // eph is 2DRMS (≈95 %); the engine wants the 68 % radius: × √(−2 ln 0.32) / (2√2).
        #expect(abs(fix.horizontalAccuracy - 20.9 * 0.53371) < 0.001)
        #expect(fix.verticalAccuracy == 17.25)
        #expect(fix.utcTime == 2_039_310_439.5)
        #expect(statistics.fixesDelivered == 1 && statistics.reportsByClass["TPV"] == 1)
    }

    @Test func epxAndEpyStandInForAMissingEph() throws {
        let (outcomes, _) = run([#"{"class":"TPV","mode":2,"time":"2024-01-01T00:00:00Z","lat":1,"lon":2,"epx":3,"epy":4}"#])
        guard case .fix(let fix) = outcomes.first else {
            Issue.record("no fix: \(outcomes)")
            return
        }
        #expect(abs(fix.horizontalAccuracy - 5 * AccuracyConversion.twoDRMSToRadius68) < 1e-12)
        #expect(fix.utcTime == 1_704_067_200)
    }

    @Test("an error of 0 is no estimate: the fix is delivered with the assumed radius, or skipped, never as 0 m measured")
    func aZeroErrorIsNoEstimate() {
        let lines = [
            #"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00.000Z","lat":52.5,"lon":13.4,"eph":0,"epv":0}"#,
            #"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:01.000Z","lat":52.5,"lon":13.4,"epx":0,"epy":0}"#,
            #"{"class":"TPV","mode":2,"time":"2024-05-01T12:00:02.000Z","lat":52.5,"lon":13.4,"eph":0,"epx":3,"epy":4}"#,
        ]
        let (assumed, _) = run(lines, unmeasured: .typical)
        let fixes = assumed.compactMap { outcome -> Location? in if case .fix(let fix) = outcome { fix } else { nil } }
        #expect(fixes.count == 3)
        #expect(fixes.prefix(2).allSatisfy { $0.horizontalAccuracyIsEstimated && $0.horizontalAccuracy == UnmeasuredAccuracy.typical.radius(threeD: true) })
        #expect(fixes.first?.verticalAccuracy == nil)
        // A zero eph beside per-axis errors: those are the estimate.
        #expect(fixes.last.map { !$0.horizontalAccuracyIsEstimated && abs($0.horizontalAccuracy - 5 * AccuracyConversion.twoDRMSToRadius68) < 1e-12 } == true)

        let (skipped, statistics) = run(Array(lines.prefix(2)), unmeasured: .skip)
        #expect(skipped.allSatisfy { if case .fix = $0 { false } else { true } })
        #expect(statistics.fixesWithoutAccuracy == 2)
    }

    @Test func repeatedEpochsAreDeliveredOnce() {
        let untimed = #"{"class":"TPV","mode":3,"lat":10,"lon":20,"eph":10}"#
        let timed = #"{"class":"TPV","mode":3,"time":"2024-01-01T00:00:01.000Z","lat":10,"lon":20,"eph":10}"#
        let next = #"{"class":"TPV","mode":3,"time":"2024-01-01T00:00:02.000Z","lat":10.1,"lon":20,"eph":10}"#
        let (outcomes, statistics) = run([untimed, untimed, timed, timed, next, timed])
        let kinds = outcomes.map { outcome -> String in
            switch outcome {
            case .fix(let fix): fix.utcTime.map { "fix@\(Int($0) % 60)" } ?? "fix@-"
            case .duplicate: "dup"
            default: "other"
            }
        }
        #expect(kinds == ["fix@-", "dup", "fix@1", "dup", "fix@2", "dup"])
        #expect(statistics.duplicateFixes == 3)
    }

    @Test("a receiver that reports no time and does not move: the same position is a repeat within one burst, a new fix after it")
    func anUntimedStillReceiverKeepsDeliveringFixes() {
        var interpreter = GPSDReportInterpreter(unmeasuredAccuracy: .skip)
        let untimed = ByteBuffer(string: #"{"class":"TPV","mode":3,"lat":10,"lon":20,"eph":10}"#)
        var delivered = 0
        var duplicates = 0
        for second in 0..<10 {
            for repeatInBurst in 0..<2 {
                switch interpreter.interpret(line: untimed, now: .seconds(Int64(second)) + .milliseconds(Int64(repeatInBurst * 3))) {
                case .fix: delivered += 1
                case .duplicate: duplicates += 1
                default: Issue.record("neither a fix nor a repeat")
                }
            }
        }
        #expect(delivered == 10, "one fix a second")
        #expect(duplicates == 10 && interpreter.statistics.duplicateFixes == 10)
        // At 10 Hz every cycle is a fix.
        var fast = GPSDReportInterpreter(unmeasuredAccuracy: .skip)
        let fixes = (0..<20).filter { tenth in
            if case .fix = fast.interpret(line: untimed, now: .milliseconds(Int64(tenth) * 100)) { true } else { false }
        }
        #expect(fixes.count == 20)
    }

    @Test func noFixAndOtherClasses() {
        let (outcomes, statistics) = run([
            #"{"class":"VERSION","release":"3.22"}"#,
            #"{"class":"TPV","mode":1}"#,
            #"{"class":"TPV","mode":0,"time":"2024-01-01T00:00:00Z"}"#,
            #"{"class":"DEVICES","devices":[]}"#,
            #"{"class":"ERROR","message":"Unrecognized request '?FOO'"}"#,
            #"{"class":"SKY","satellites":[]}"#,
        ])
        #expect(outcomes == [.ignored, .noFix, .noFix, .devices(0, identified: []), .gpsdError("Unrecognized request '?FOO'"), .ignored])
        #expect(statistics.noFixReports == 2 && statistics.errorReports == 1 && statistics.totalSkipped == 0)
    }

    @Test("DEVICES and DEVICE say which devices gpsd has identified (a driver named): the receiver set-up waits for its own")
    func identifiedDevicesAreNamed() {
        let (outcomes, _) = run([
            #"{"class":"DEVICES","devices":[{"path":"/dev/ttyUSB0","driver":"MTK-3301","activated":"2026-01-01T00:00:00.000Z"},{"path":"/dev/ttyUSB1"},{"path":"/dev/ttyUSB2","driver":""}]}"#,
            #"{"class":"DEVICE","path":"/dev/ttyUSB1","driver":"u-blox"}"#,
            #"{"class":"DEVICE","path":"/dev/ttyUSB2","activated":0}"#,
        ])
        #expect(outcomes == [.devices(3, identified: ["/dev/ttyUSB0"]), .deviceIdentified("/dev/ttyUSB1"), .ignored])
    }

    @Test func aMeaninglessErrorEstimateOrADateThatDoesNotExistSkipsTheFix() {
        let (outcomes, statistics) = run(
            [
                #"{"class":"TPV","mode":3,"time":"2024-01-01T00:00:01Z","lat":1,"lon":2,"eph":1e300}"#,
                #"{"class":"TPV","mode":3,"time":"2024-01-01T00:00:02Z","lat":1,"lon":2,"eph":-3}"#,
                #"{"class":"TPV","mode":3,"time":"2024-01-01T00:00:03Z","lat":1,"lon":2,"epx":3,"epy":1e300}"#,
                #"{"class":"TPV","mode":3,"time":"2024-02-31T00:00:04Z","lat":1,"lon":2,"eph":3}"#,
                #"{"class":"TPV","mode":3,"time":"2023-02-29T00:00:05Z","lat":1,"lon":2,"eph":3}"#,
                #"{"class":"TPV","mode":3,"time":"2024-02-29T00:00:06Z","lat":1,"lon":2,"eph":3}"#,
            ], unmeasured: .typical)
        #expect(outcomes.prefix(5).allSatisfy { $0 == .skipped(.invalidValue) }, "never delivered with an assumed accuracy: \(outcomes)")
        #expect(statistics.invalidValues == 5 && statistics.fixesWithAssumedAccuracy == 0)
        guard case .fix(let leapDay) = outcomes.last else {
            Issue.record("February 29th of a leap year was refused: \(outcomes)")
            return
        }
        #expect(leapDay.utcTime == 1_709_164_806)
    }

    @Test func hostileInputIsSkippedAndCounted() {
        let (outcomes, statistics) = run(
            [
                "not json at all",
                #"{"class":"TPV","mode":3,"lat":NaN,"lon":2,"eph":3}"#,
                #"{"class":"TPV","mode":3,"lat":95,"lon":2,"eph":3}"#,
                #"{"class":"TPV","mode":3,"lat":1,"lon":2,"eph":1e999}"#,
                #"{"class":"TPV","mode":"3","lat":1,"lon":2}"#,
                #"{"class":"TPV","mode":7,"lat":1,"lon":2,"eph":3}"#,
                #"{"class":"TPV","mode":3,"lat":1,"lon":2}"#,
                #"{"class":"TPV","mode":3,"time":"yesterday","lat":1,"lon":2,"eph":3}"#,
                #"{"class":"FOO"}"#,
                #"{"mode":3}"#,
                "[1,2,3]",
                "\u{0}\u{1}\u{2}\u{FFFD}",
                #"{"class":"TPV","mode":3,"time":"2024-01-01T00:00:09Z","lat":1,"lon":2,"eph":3,"speed":-4,"track":1e300,"altMSL":-1e9}"#,
            ])
        #expect(statistics.fixesDelivered == 1)
        guard case .fix(let fix) = outcomes.last else {
            Issue.record("the last, valid report was not delivered: \(outcomes)")
            return
        }
        #expect(fix.speed == nil && fix.altitude == nil && fix.course != nil, "impossible optional values are dropped")
        // 1e999 is either rejected by the JSON parser or read as infinity (then: no usable accuracy).
        #expect(statistics.malformedReports >= 6)
        #expect(statistics.unexpectedClasses == 1)
        #expect(statistics.fixesWithoutAccuracy >= 1)
        #expect(statistics.invalidValues == 3, "lat 95, mode 7, a bad time")
        #expect(statistics.droppedFields == 2, "speed and altitude dropped from the delivered fix")
        #expect(statistics.reportsByClass.keys.sorted() == ["TPV"], "unknown classes are not keyed")
        #expect(statistics.totalSkipped == 12)
    }

    @Test func timesParse() {
        #expect(GPSDTime.unixTime("1970-01-01T00:00:00Z") == 0)
        #expect(GPSDTime.unixTime("2000-03-01T12:00:00.25Z") == 951_912_000.25)
        #expect(GPSDTime.unixTime("2000-13-01T12:00:00Z") == nil)
        #expect(GPSDTime.unixTime("2000-03-01 12:00:00Z") == nil)
        #expect(GPSDTime.unixTime("2000-03-01T12:00:00.Z") == nil)
    }

    @Test("a fix without any error estimate gets a radius assumed from its mode, marked as estimated, by default")
    func unmeasuredFixesAreEstimatedByMode() throws {
        let threeD = #"{"class":"TPV","mode":3,"time":"2024-01-01T00:00:01Z","lat":52.5,"lon":13.4}"#
        let twoD = #"{"class":"TPV","mode":2,"time":"2024-01-01T00:00:02Z","lat":52.5,"lon":13.4}"#
        let measured = #"{"class":"TPV","mode":3,"time":"2024-01-01T00:00:03Z","lat":52.5,"lon":13.4,"eph":10}"#
        let (outcomes, statistics) = run([threeD, twoD, measured], unmeasured: .typical)
        let fixes = outcomes.compactMap { if case .fix(let fix) = $0 { fix } else { nil } }
        try #require(fixes.count == 3)
        // gpsd's own error model for HDOP 1.5 and 4 (HDOP × 19 m, a 2DRMS), as a 68 % radius.
        #expect(abs(fixes[0].horizontalAccuracy - 1.5 * 19 * AccuracyConversion.twoDRMSToRadius68) < 1e-9)
        #expect(abs(fixes[1].horizontalAccuracy - 4 * 19 * AccuracyConversion.twoDRMSToRadius68) < 1e-9)
        #expect(fixes[0].horizontalAccuracyIsEstimated && fixes[1].horizontalAccuracyIsEstimated)
        #expect(!fixes[2].horizontalAccuracyIsEstimated, "a measured eph is not an estimate")
        #expect(statistics.fixesWithAssumedAccuracy == 2 && statistics.fixesWithoutAccuracy == 0)
        #expect(GPSDConfiguration().unmeasuredAccuracy == .typical, "estimating is the default")

        let (assumed, _) = run([threeD], unmeasured: .assume(threeD: 5, twoD: 20))
        #expect(assumed.compactMap { if case .fix(let fix) = $0 { fix.horizontalAccuracy } else { nil } } == [5])
        let (skipped, counted) = run([threeD, twoD])
        #expect(skipped == [.skipped(.noAccuracy), .skipped(.noAccuracy)] && counted.fixesWithoutAccuracy == 2)
        let (absurd, _) = run([threeD], unmeasured: .assume(threeD: .nan, twoD: -1))
        #expect(absurd == [.skipped(.noAccuracy)], "an assumption that is no radius skips the fix")
    }
}
