import LocbenchModel
import Testing

@Suite struct DurationOptionsTests {
    @Test func parsesTimeoutRanges() throws {
        #expect(try DurationOptions.timeoutRange(parsing: "100ms-1s") == .milliseconds(100)...(.seconds(1)))
        #expect(try DurationOptions.timeoutRange(parsing: "30-30") == .seconds(30)...(.seconds(30)))
        #expect(try DurationOptions.timeoutRange(parsing: "1m-24h") == .seconds(60)...(.seconds(86_400)))
        #expect(try DurationOptions.timeoutRange(parsing: "1ms-2ms") == .milliseconds(1)...(.milliseconds(2)))
    }

    // Timeouts are whole milliseconds: 0.5ms would be drawn as zero, no timeout at all.
    @Test(arguments: ["30s", "0s-1s", "0.5ms-0.9ms", "0.9ms-3ms", "30s-1s", "1s-25h", "1s-x", "1s--2s", "1s-99999999999999999999s", "-1s-5s", "-1s", "1s-"])
    func rejectsBadTimeoutRanges(text: String) {
        let error = #expect(throws: LocbenchError.self) { try DurationOptions.timeoutRange(parsing: text) }
        #expect(error?.description == "--timeouts must be MIN-MAX with 1ms <= MIN <= MAX <= 24h, e.g. 1s-30s (got '\(text)')")
    }

    @Test func parsesLingerFromZeroToAnHour() throws {
        #expect(try DurationOptions.linger(parsing: "0s") == .zero)
        #expect(try DurationOptions.linger(parsing: "5s") == .seconds(5))
        #expect(try DurationOptions.linger(parsing: "1h") == .seconds(3600))
        for text in ["61m", "-5s", "soon", ""] {
            let error = #expect(throws: LocbenchError.self) { try DurationOptions.linger(parsing: text) }
            #expect(error?.description == "--linger must be a duration from 0s to 1h, e.g. 5s (got '\(text)')")
        }
    }

    @Test func parsesOnAndOffPeriods() throws {
        let periods = try DurationOptions.onOffPeriods(on: "30s", off: "1m30s")
        #expect(periods.on == 30 && periods.off == 90)
        let bounds = try DurationOptions.onOffPeriods(on: "1ms", off: "24h")
        #expect(bounds.on == 0.001 && bounds.off == 86_400)
    }

    /// Periods under 1 ms were accepted although the message says 1 ms; an on period of 1e-300 s made
    /// drawing the next arrival loop through idle gaps almost without end.
    @Test(arguments: [("0s", "90s"), ("1e-300", "90s"), ("0.0005", "90s"), ("30s", "25h"), ("30s", ""), ("30s", "-1s")])
    func rejectsPeriodsOutsideOneMillisecondToADay(on: String, off: String) {
        let error = #expect(throws: LocbenchError.self) { try DurationOptions.onOffPeriods(on: on, off: off) }
        #expect(error?.description == "--on-period and --off-period must be durations from 1ms to 24h, e.g. 30s (got '\(on)', '\(off)')")
    }

    @Test func parsesAGeofenceDurationFromAMinuteToADay() throws {
        #expect(try DurationOptions.geofenceDuration(parsing: "1h") == 3600)
        #expect(try DurationOptions.geofenceDuration(parsing: "20m") == 1200)
        for text in ["59s", "25h", "", "-1h"] {
            let error = #expect(throws: LocbenchError.self) { try DurationOptions.geofenceDuration(parsing: text) }
            #expect(error?.description == "--geofence-duration must be a duration from 1m to 24h, e.g. 1h (got '\(text)')")
        }
    }

    @Test func parsesAGeofenceResponsivenessFromZeroToFiveMinutes() throws {
        #expect(try DurationOptions.geofenceResponsiveness(parsing: "0s") == 0)
        #expect(try DurationOptions.geofenceResponsiveness(parsing: "30s") == 30)
        #expect(try DurationOptions.geofenceResponsiveness(parsing: "5m") == 300)
        for text in ["301s", "6m", "", "-1s"] {
            let error = #expect(throws: LocbenchError.self) { try DurationOptions.geofenceResponsiveness(parsing: text) }
            #expect(error?.description == "--geofence-responsiveness must be a duration from 0s to 5m, e.g. 30s (got '\(text)')")
        }
    }

    @Test func thePendingTimelineReservesAPointPer100msUpTo32MiB() {
        // A day of commuting: every bucket, as the run may sample each while busy.
        #expect(PendingTimeline.capacity(span: 86_400 * 1_000_000_000) == 864_000 + 4_096)
        // Arrivals a hundred million seconds apart: one point per 100 ms would be 16 GB reserved.
        #expect(PendingTimeline.capacity(span: 100_000_000 * 1_000_000_000) == (1 << 21) + 4_096)
        #expect(PendingTimeline.capacity(span: 0) == 4_096)
    }
}
