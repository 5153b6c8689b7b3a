import LocbenchModel
import Testing

@Suite struct PollingScheduleTests {
    @Test("fixes every 5 s on a grid: a restart 3 s ahead, its fix on time or early, the next due an interval after the last was due")
    func restartsKeepTheGrid() {
        var schedule = PollingSchedule(interval: 5, lead: 3)
        #expect(!schedule.keepsTracking)
        do { let took = schedule.take(fixAt: 10); #expect(took && schedule.due == 15 && schedule.restartAt == 12) }
        // The restart's fix comes after 2 s of the 3 allowed: a second early, and the grid holds.
        do { let took = schedule.take(fixAt: 14); #expect(took && schedule.due == 20 && schedule.restartAt == 17) }
        // A fix before the restart window is not the design's.
        do { let took = schedule.take(fixAt: 16); #expect(!took) }
        do { let took = schedule.take(fixAt: 20); #expect(took && schedule.due == 25) }
        // Late past a whole interval (an outage): the next grid point after it.
        do { let took = schedule.take(fixAt: 31); #expect(took && schedule.due == 35 && schedule.restartAt == 32) }
        do { let took = schedule.take(fixAt: 34); #expect(took && schedule.due == 40) }
        // Late by one second: the next restart is still ahead.
        do { let took = schedule.take(fixAt: 41); #expect(took && schedule.due == 45 && schedule.restartAt == 42) }
        var early = PollingSchedule(interval: 5, lead: 3)
        _ = early.take(fixAt: 0)
        do { let took = early.take(fixAt: 3); #expect(took && early.due == 10 && early.restartAt == 7) }
        do { let took = early.take(fixAt: 8); #expect(took && early.due == 15) }
        do { let took = early.take(fixAt: 13); #expect(took && early.due == 20) }
        var edge = PollingSchedule(interval: 5, lead: 3)
        _ = edge.take(fixAt: 0)
        do { let took = edge.take(fixAt: 7); #expect(took && edge.due == 10 && edge.restartAt == nil, "restart due at 7: tracking on") }
        // Kept tracking after that late fix, the next is taken when due, not early.
        do { let took = edge.take(fixAt: 8); #expect(!took) }
        do { let took = edge.take(fixAt: 10); #expect(took && edge.due == 15 && edge.restartAt == 12) }
    }

    @Test("an interval within the lead keeps the receiver tracking and takes the fix of every interval-th second")
    func shortIntervalsTrack() {
        var schedule = PollingSchedule(interval: 2, lead: 3)
        #expect(schedule.keepsTracking)
        let taken = (5...15).filter { schedule.take(fixAt: $0) }
        #expect(taken == [5, 7, 9, 11, 13, 15])
        #expect(schedule.restartAt == nil)
        var everySecond = PollingSchedule(interval: 1, lead: 3)
        var all: [Int] = []
        for second in 0...4 where everySecond.take(fixAt: second) { all.append(second) }
        #expect(all == [0, 1, 2, 3, 4])
    }

    @Test("over an hour, a fix every N seconds is 3,600 / N fixes, whatever the restarts take")
    func anHourHoldsItsCount() {
        for interval in [5, 10, 30, 60] {
            var schedule = PollingSchedule(interval: interval, lead: 3)
            var restartAt: Int? = nil
            var tracking = true
            var taken = 0
            var state: UInt64 = 42
            var fixAt: Int? = 0
            for second in 0...3600 {
                if restartAt == second {
                    tracking = true
                    // A hot start of 1 to 3 s.
                    state = state &* 6_364_136_223_846_793_005 &+ 1
                    fixAt = second + 1 + Int(state >> 62) % 3
                    restartAt = nil
                }
                guard tracking, fixAt.map({ second >= $0 }) ?? true else { continue }
                if schedule.take(fixAt: second) {
                    taken += 1
                    if let restart = schedule.restartAt {
                        tracking = false
                        restartAt = restart
                    }
                }
            }
            #expect(abs(taken - 3600 / interval) <= 1, "\(interval) s: \(taken) fixes")
        }
    }
}
