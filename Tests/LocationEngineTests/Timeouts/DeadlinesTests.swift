import LocationEngineTestKit
import Testing

@testable import LocationEngine

extension Deadlines {
    /// Drops entries of ended requests from the head, as the requests part does after every removal.
    fileprivate mutating func dropAbandonedHead(isLive: (RequestID) -> Bool) {
        while let id = earliestID, !isLive(id) { dropEarliest() }
    }
}

@Suite("Deadline queue (lanes of equal timeouts behind one heap)")
struct DeadlinesTests {
    /// Pops everything due at `now`.
    private func popAll(_ queue: inout Deadlines, at now: Int64) -> [UInt64] {
        var popped: [UInt64] = []
        while let id = queue.popDue(at: EngineInstant(nanoseconds: now)) { popped.append(id.rawValue) }
        return popped
    }

    @Test("deadlines of several lanes and lone entries come out earliest first, equal deadlines by ID")
    func order() {
        var queue = Deadlines()
        // Two lanes (10 s, 5 s), interleaved; an entry made earlier than its lane's last goes alone.
        queue.insert(RequestID(rawValue: 1), timeout: .seconds(10), from: EngineInstant(.seconds(0)))  // 10
        queue.insert(RequestID(rawValue: 2), timeout: .seconds(5), from: EngineInstant(.seconds(1)))  // 6
        queue.insert(RequestID(rawValue: 3), timeout: .seconds(10), from: EngineInstant(.seconds(2)))  // 12
        queue.insert(RequestID(rawValue: 4), timeout: .seconds(5), from: EngineInstant(.seconds(5)))  // 10, ties with 1
        queue.insert(RequestID(rawValue: 5), timeout: .seconds(10), from: EngineInstant(.seconds(1)))  // 11, out of lane order
        #expect(queue.count == 5)
        #expect(queue.earliest == EngineInstant(.seconds(6)))
        #expect(popAll(&queue, at: 5_999_999_999) == [])
        #expect(popAll(&queue, at: 10_000_000_000) == [2, 1, 4])
        #expect(popAll(&queue, at: 20_000_000_000) == [5, 3])
        #expect(queue.count == 0)
        #expect(queue.earliest == nil)
    }

    @Test("abandoned heads are dropped so the earliest deadline is live; compaction keeps only live entries")
    func abandonment() {
        var queue = Deadlines()
        for raw in UInt64(1)...3_000 {
            queue.insert(RequestID(rawValue: raw), timeout: .seconds(Int64(raw % 3 + 1)), from: .zero)
        }
        // Every request but the multiples of 7 ends early.
        let isLive: (RequestID) -> Bool = { $0.rawValue % 7 == 0 }
        let pending = 3_000 / 7
        #expect(queue.abandonedAtLeast(pending: pending) == 3_000 - pending)
        queue.dropAbandonedHead(isLive: isLive)
        #expect(queue.earliest == EngineInstant(.seconds(1)))
        #expect(queue.needsCompaction(pending: pending))
        #expect(!queue.needsCompaction(pending: 1_500), "half live: not worth a rebuild")
        queue.compact(isLive: isLive)
        #expect(queue.count == pending)
        #expect(!queue.needsCompaction(pending: pending))
        let popped = popAll(&queue, at: Int64.max)
        let expected = (UInt64(1)...3_000).filter { $0 % 7 == 0 }.sorted { ($0 % 3, $0) < ($1 % 3, $1) }
        #expect(popped == expected)
    }

    @Test("past the lane limit, new durations share the heap and order stays exact")
    func laneLimit() {
        var queue = Deadlines()
        let count = Deadlines.maximumLanes + 200
        for raw in 1...count {
            queue.insert(RequestID(rawValue: UInt64(raw)), timeout: .nanoseconds(Int64(count - raw + 1)), from: .zero)
        }
        #expect(popAll(&queue, at: Int64.max) == (1...count).reversed().map(UInt64.init))
    }

    @Test("random inserts, expiries and abandonments agree with a sorted reference", arguments: [1, 2, 3, 4] as [UInt64])
    func matchesReference(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var queue = Deadlines()
        var live: [UInt64: Int64] = [:]
        var abandoned: Set<UInt64> = []
        var now: Int64 = 0
        var nextID: UInt64 = 1
        for _ in 0..<20_000 {
            switch random.next() % 10 {
            case 0..<6:
                // Few distinct timeouts (lanes), starts a little behind now at times (out of lane order).
                let timeout = Int64(random.next() % 20 + 1) * 1_000
                let start = now - Int64(random.next() % 3) * 500
                queue.insert(RequestID(rawValue: nextID), timeout: .nanoseconds(timeout), from: EngineInstant(nanoseconds: start))
                live[nextID] = start + timeout
                nextID += 1
            case 6..<8:
                guard let id = live.keys.randomElement(using: &random) else { continue }
                live[id] = nil
                abandoned.insert(id)
                queue.dropAbandonedHead { live[$0.rawValue] != nil }
            case 8:
                #expect(queue.count >= live.count, "every live request keeps its entry")
                if queue.needsCompaction(pending: live.count) {
                    queue.compact { live[$0.rawValue] != nil }
                    abandoned.removeAll()
                }
            default:
                now += Int64(random.next() % 4_000)
                var popped: [UInt64] = []
                while let id = queue.popDue(at: EngineInstant(nanoseconds: now)) {
                    if abandoned.remove(id.rawValue) == nil { popped.append(id.rawValue) }
                }
                let expected = live.filter { $0.value <= now }.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key)
                #expect(popped == expected)
                for id in popped { live[id] = nil }
                queue.dropAbandonedHead { live[$0.rawValue] != nil }  // as the core does after every expiry pass
                if let earliest = queue.earliest {
                    #expect(earliest.nanoseconds == live.values.min(), "the earliest deadline must be live")
                }
            }
        }
    }
}
