import Testing
@testable import SyntheticGPS

@Suite struct RandomTests {
    @Test func sameSeedSameStream() {
        var a = SeededGenerator(seed: 42)
        var b = SeededGenerator(seed: 42)
        var c = SeededGenerator(seed: 43)
        let first = (0..<100).map { _ in a.next() }
        #expect(first == (0..<100).map { _ in b.next() })
        #expect(first != (0..<100).map { _ in c.next() })
    }

    @Test func knownFirstValuesPinTheAlgorithm() {
        // xoshiro256** seeded through SplitMix64(0), as in the reference implementation. If these change,
        // every seeded scenario changes: that must be a deliberate decision.
        var generator = SeededGenerator(seed: 0)
        #expect((0..<3).map { _ in generator.next() } == [0x99EC_5F36_CB75_F2B4, 0xBF6E_1F78_4956_452A, 0x1A5F_849D_4933_E6E0])
    }

    @Test func gaussianHasUnitMomentsAndUnitsAreInRange() {
        var generator = SeededGenerator(seed: 7)
        let count = 200_000
        var sum = 0.0, sumSquares = 0.0
        for _ in 0..<count {
            let x = generator.gaussian()
            sum += x
            sumSquares += x * x
        }
        let mean = sum / Double(count)
        let variance = sumSquares / Double(count) - mean * mean
        #expect(abs(mean) < 0.01)
        #expect(abs(variance - 1) < 0.015)
        for _ in 0..<10_000 {
            let u = generator.nextUnit()
            #expect(u >= 0 && u < 1)
        }
    }

    @Test func derivedStreamsAreIndependentOfEachOther() {
        let root = SeededGenerator(seed: 5)
        var one = root.derived(stream: 1)
        var two = root.derived(stream: 2)
        #expect(one.next() != two.next())
        var oneAgain = root.derived(stream: 1)
        var oneCopy = SeededGenerator(seed: 5).derived(stream: 1)
        #expect(oneAgain.next() == oneCopy.next())
    }
}
