import LocationEngineTestKit
import Testing
@testable import LocationEngine

@Suite("TimeoutLanes (the deadlines' lane of each timeout)")
struct TimeoutLanesTests {
    @Test("matches a dictionary under random inserts and lookups, and lists its lanes ascending by timeout")
    func modelCheck() {
        var rng = SplitMix64(seed: 7)
        var lanes = TimeoutLanes()
        var model: [Int64: Int32] = [:]
        for _ in 0..<5_000 {
            // Timeouts from a small range, negative and zero included, so that lookups hit and miss.
            let timeout = Int64(rng.int(400)) - 50
            #expect(lanes.lane(of: timeout) == model[timeout])
            if model[timeout] == nil, model.count < Deadlines.maximumLanes {
                let lane = Int32(model.count)
                lanes.insert(timeout, lane: lane)
                model[timeout] = lane
            }
        }
        #expect(lanes.count == model.count)
        #expect(lanes.all.map(\.0) == model.keys.sorted())
        #expect(lanes.all.allSatisfy { model[$0.0] == $0.1 })
        #expect(lanes.lane(of: .max) == nil && lanes.lane(of: .min) == nil)
    }
}
