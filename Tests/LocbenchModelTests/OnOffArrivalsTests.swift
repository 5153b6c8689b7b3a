import LocationEngineTestKit
import LocbenchModel
import Testing

@Suite struct OnOffArrivalsTests {
    func draw(_ count: Int, seed: UInt64, rate: Double = 20, meanOn: Double = 30, meanOff: Double = 90) -> [Int64] {
        var process = OnOffArrivals(rate: rate, meanOn: meanOn, meanOff: meanOff)
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in process.next(using: &generator) }
    }

    @Test func theSameSeedGivesTheSameArrivalsInOrder() {
        let arrivals = draw(5_000, seed: 7)
        #expect(arrivals == draw(5_000, seed: 7))
        #expect(arrivals != draw(5_000, seed: 8))
        #expect(zip(arrivals, arrivals.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func arrivalsComeInBurstsSeparatedByIdleGaps() {
        // 20 per second while on: gaps within a burst average 50 ms; a gap of 5 s or more is an off period.
        let arrivals = draw(20_000, seed: 42)
        let gaps = zip(arrivals, arrivals.dropFirst()).map { Double($1 - $0) / 1e9 }
        let idle = gaps.filter { $0 >= 5 }
        #expect(idle.count >= 10)
        // Time spent on is about a quarter of the total (mean on 30 s, mean off 90 s); the rate while on is about 20/s.
        let busy = gaps.filter { $0 < 5 }.reduce(0, +)
        let total = Double(arrivals.last! - arrivals.first!) / 1e9
        #expect((0.15...0.4).contains(busy / total))
        #expect((17...23).contains(Double(arrivals.count) / busy))
    }

    @Test func theExpectedSpanIsWhatTheDrawsTake() {
        // A thousand cycles of on and off, so that the span is near its expectation (a few per cent).
        let arrivals = draw(20_000, seed: 42, rate: 20, meanOn: 1, meanOff: 3)
        let span = Double(arrivals.last!) / 1e9
        let expected = OnOffArrivals(rate: 20, meanOn: 1, meanOff: 3).expectedSpan(of: 20_000)
        #expect((0.8...1.25).contains(span / expected), "\(span) s drawn against \(expected) s expected")
        var commute = CommuteArrivals(rate: 0.5)
        var generator = SplitMix64(seed: 3)
        let days = (0..<50_000).map { _ in commute.next(using: &generator) }
        let commuteExpected = CommuteArrivals(rate: 0.5).expectedSpan(of: 50_000)
        #expect((0.8...1.25).contains(Double(days.last!) / 1e9 / commuteExpected))
        // The bound the command line holds plans to leaves room for a draw far past its expectation.
        #expect(OnOffArrivals.longestSpan * 50 * 1e9 < Double(Int64.max))
    }
}
