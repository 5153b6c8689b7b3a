import LocationEngineTestKit
import Testing

@testable import LocationServer

@Suite("The audit log: at most a line per client per minute")
struct AuditLogTests {
    @Test("a client's first answer is logged; the rest of the minute is summed into the line that ends it")
    func oncePerMinute() {
        var log = AuditLog<ManualClock.Instant>()
        let start = ManualClock.Instant(offset: .zero)
        #expect(log.record("fleet", level: "block", at: start)?.text == "client fleet: 1 answer (block 1)")
        #expect(log.record("fleet", level: "block", at: start.advanced(by: .seconds(10))) == nil)
        #expect(log.record("fleet", level: "none", at: start.advanced(by: .seconds(59))) == nil)
        #expect(log.record("weather", level: "city", at: start.advanced(by: .seconds(59)))?.text == "client weather: 1 answer (city 1)")
        let line = log.record("fleet", level: "block", at: start.advanced(by: .seconds(60)))
        #expect(line?.text == "client fleet: 3 answers (block 2, none 1)")
        #expect(log.record("fleet", level: "block", at: start.advanced(by: .seconds(61))) == nil)
    }
}
