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
}
