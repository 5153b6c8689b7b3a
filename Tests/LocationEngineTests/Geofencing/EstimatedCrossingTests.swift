import Testing
@testable import LocationEngine

/// ``GeofenceEvent/estimatedCrossing``: when the device crossed, estimated from the fixes between the last one
/// confidently on the old side and the deciding one.
@Suite("Geofence crossing estimate")
struct EstimatedCrossingTests {
    /// Seconds on the harness's timeline.
    private func seconds(_ instant: EngineInstant?) -> Double? { instant.map { Double($0.nanoseconds) / 1e9 } }

    /// A walk at 1.4 m/s along the east axis from 300 m east of a 200 m circle's centre in through the boundary and
    /// on, one fix a second, each displaced east by `noise(second)` metres; returns the entered event.
    private func walkIn(noise: (Int) -> Double) throws -> (event: GeofenceEvent, harness: EvaluatorHarness) {
        let h = try EvaluatorHarness()
        try h.circle()
        for second in 0...200 {
            h.fix(east: 300 - 1.4 * Double(second) + noise(second))
            if let entered = h.events.first(where: { $0.transition == .entered }) { return (entered, h) }
            h.advance(by: .seconds(1))
        }
        Issue.record("the walk never entered")
        throw CancellationError()
    }

    @Test("noise-free fixes: the estimate is the true crossing, while the decision comes the margin's travel later")
    func exactOnALine() throws {
        let (entered, _) = try walkIn { _ in 0 }
        // The boundary is 100 m in: crossed at 100 / 1.4 s; decided 30 m further in, at the first fix past 130 m.
        let truth = 100 / 1.4
        #expect(seconds(entered.at) == 93)
        let estimate = try #require(seconds(entered.estimatedCrossing))
        #expect(abs(estimate - truth) < 0.01)
    }

    @Test("jittered fixes: the fit keeps the estimate within a second or two of the truth, inside the window")
    func jittered() throws {
        // ±8 m of deterministic noise, changing sign irregularly (well above a 5 m fix's accuracy).
        let pattern: [Double] = [8, -6, 3, -8, 7, -2, -7, 5, 8, -4, 1, -8, 6]
        let (entered, _) = try walkIn { pattern[$0 % pattern.count] }
        let estimate = try #require(seconds(entered.estimatedCrossing))
        #expect(abs(estimate - 100 / 1.4) < 2)
        #expect(estimate <= seconds(entered.at)!)
    }

    @Test("leaving is estimated the same way, and a first decision carries no estimate")
    func exitAndDetermined() throws {
        let h = try EvaluatorHarness()
        try h.circle()
        h.fix(east: 0)
        #expect(h.events.map(\.estimatedCrossing) == [nil])
        h.events.removeAll()
        // Walking out at 2 m/s, for at most 200 s (twice the time it takes).
        for second in 1...200 where !h.events.contains(where: { $0.transition == .exited }) {
            h.advance(by: .seconds(1))
            h.fix(east: 2 * Double(second))
        }
        let exited = try #require(h.events.first { $0.transition == .exited })
        // Out at 100 s (200 m at 2 m/s), decided 30 m further out (about 115 s).
        #expect((115...116).contains(try #require(seconds(exited.at))))
        #expect(abs(try #require(seconds(exited.estimatedCrossing)) - 100) < 0.01)
    }

    @Test("a crossing between two sparse fixes: entered and exited estimated where the line between them passes the boundary")
    func passage() throws {
        let h = try EvaluatorHarness()
        try h.circle()
        h.fix(east: -400)
        h.events.removeAll()
        h.advance(by: .seconds(10))
        h.fix(east: 400)
        let entered = try #require(h.events.first { $0.transition == .entered })
        let exited = try #require(h.events.first { $0.transition == .exited })
        // 80 m/s along the line: in at 200 m (2.5 s), out at 600 m (7.5 s); read every 10/64 s.
        #expect(abs(seconds(entered.estimatedCrossing)! - 2.5) <= 10.0 / 64)
        #expect(abs(seconds(exited.estimatedCrossing)! - 7.5) <= 10.0 / 64)
        #expect(seconds(entered.at) == 10 && seconds(exited.at) == 10)
    }

    @Test("a dwell and a region going unknown carry no estimate")
    func otherTransitions() throws {
        let h = try EvaluatorHarness()
        try h.circle(loitering: .seconds(30))
        h.fix(east: 1000)
        h.advance(by: .seconds(1))
        h.fix(east: 0)
        h.advance(by: .seconds(200))
        let transitions = h.events.map(\.transition)
        #expect(transitions.contains(.dwelled) && transitions.contains(.becameUnknown))
        #expect(h.events.filter { $0.transition == .dwelled || $0.transition == .becameUnknown }.allSatisfy { $0.estimatedCrossing == nil })
        #expect(h.events.first { $0.transition == .entered }?.estimatedCrossing != nil)
    }
    @Test("two fixes a minute apart, the first far out: the entry is placed along the line between them, not at the first")
    func sparseFixesAreReadAsTheyAre() throws {
        let h = try EvaluatorHarness()
        try h.circle()
        h.fix(east: 1000)
        h.advance(by: .seconds(60))
        h.fix(east: 0)
        let entered = try #require(h.events.first { $0.transition == .entered })
        // 800 m outside at 0 s, 200 m inside at 60 s: the boundary at 800 / 1000 of the way, 48 s.
        #expect(abs(seconds(entered.estimatedCrossing)! - 48) < 0.001)
    }
}
