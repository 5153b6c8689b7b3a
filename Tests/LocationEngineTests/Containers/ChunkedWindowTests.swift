import LocationEngineTestKit
import Testing
@testable import LocationEngine

@Suite("ChunkedWindow (segmented deque of slots)")
struct ChunkedWindowTests {
    @Test("matches an array of optionals under random appends, holes, removals at both ends and overwrites")
    func modelCheck() {
        var rng = SplitMix64(seed: 11)
        var window = ChunkedWindow<Int>()
        var model: [Int?] = []
        let chunk = ChunkedWindow<Int>.chunkSize
        for step in 0..<60_000 {
            // Past a few chunks, only removals and overwrites: the window stays small enough to compare
            // whole, and keeps crossing chunk edges in both directions.
            switch model.count > 4 * chunk ? 47 + rng.int(53) : rng.int(100) {
            case 0..<45:
                let value: Int? = rng.int(4) == 0 ? nil : step
                window.append(value)
                model.append(value)
            case 45..<47:
                // Runs of holes that cross chunk edges.
                let holes = rng.int(2 * chunk)
                window.appendHoles(holes)
                model.append(contentsOf: repeatElement(nil, count: holes))
            case 47..<72 where !model.isEmpty:
                window.removeFirst()
                model.removeFirst()
            case 72..<85 where !model.isEmpty:
                window.removeLast()
                model.removeLast()
            case 85..<100 where !model.isEmpty:
                let index = rng.int(model.count)
                let value: Int? = rng.int(3) == 0 ? nil : -step
                window[index] = value
                model[index] = value
            default:
                break
            }
            if window.count != model.count {
                Issue.record("step \(step): \(window.count) slots, the model has \(model.count)")
                return
            }
            if step % 1_009 == 0 || model.count < 3 {
                #expect(model.indices.allSatisfy { window[$0] == model[$0] }, "step \(step)")
            }
        }
        #expect(model.indices.allSatisfy { window[$0] == model[$0] })
    }

    @Test("growth keeps every stored value in place, and removing the values releases them")
    func growthAndRelease() {
        final class Token {}
        weak var firstToken: Token?
        var window = ChunkedWindow<Token>()
        do {
            let token = Token()
            firstToken = token
            window.append(token)
        }
        let stored = 5 * ChunkedWindow<Token>.chunkSize + 3
        for _ in 1..<stored { window.append(Token()) }
        #expect(window.count == stored)
        #expect(window[0] === firstToken)
        while window.count > 1 { window.removeLast() }
        #expect(firstToken != nil)
        window.removeFirst()
        #expect(window.isEmpty)
        #expect(firstToken == nil)
        // Emptied, it takes slots again from the start.
        window.append(Token())
        #expect(window.count == 1 && window[0] != nil)
    }
}
