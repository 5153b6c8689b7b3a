import LocationEngineTestKit
import Testing
@testable import LocationEngine

@Suite("RequestTable (dense-ID map)")
struct RequestTableTests {
    @Test("matches a Dictionary under random inserts and removals, with long-lived IDs")
    func modelCheck() {
        var rng = SplitMix64(seed: 7)
        var table = RequestTable<Int>()
        var model: [RequestID: Int] = [:]
        var next: UInt64 = 1
        var live: [RequestID] = []
        for step in 0..<200_000 {
            if rng.int(100) < 55 || live.isEmpty {
                let id = RequestID(rawValue: next)
                next += 1
                table[id] = step
                model[id] = step
                live.append(id)
            } else {
                // Mostly remove recent IDs, so a few old ones live long and pin the window's front.
                let index = rng.int(10) == 0 ? rng.int(live.count) : max(0, live.count - 1 - rng.int(min(live.count, 50)))
                let id = live.remove(at: index)
                #expect(table.removeValue(forKey: id) == model.removeValue(forKey: id))
            }
            if step % 997 == 0 {
                #expect(table.count == model.count)
                for id in live.suffix(20) { #expect(table[id] == model[id]) }
            }
        }
        #expect(table.count == model.count)
        var keys: Set<RequestID> = []
        table.forEach { id, _ in keys.insert(id) }
        #expect(keys == Set(model.keys))
        for (id, value) in model { #expect(table[id] == value) }
        #expect(table[RequestID(rawValue: next + 5)] == nil)
        #expect(table.removeValue(forKey: RequestID(rawValue: next + 5)) == nil)
    }

    @Test("matches a Dictionary when live entries are stored again (a request held, admitted), long-lived ones in the overflow")
    func modelCheckWithOverwrites() {
        var rng = SplitMix64(seed: 11)
        var table = RequestTable<Int>()
        var model: [RequestID: Int] = [:]
        var next: UInt64 = 1
        var live: [RequestID] = []
        for step in 0..<200_000 {
            let roll = rng.int(100)
            if roll < 45 || live.isEmpty {
                let id = RequestID(rawValue: next)
                next += 1
                table[id] = step
                model[id] = step
                live.append(id)
            } else if roll < 55 {
                let id = live[rng.int(live.count)]
                table[id] = step
                model[id] = step
            } else {
                let index = rng.int(10) == 0 ? rng.int(live.count) : max(0, live.count - 1 - rng.int(min(live.count, 50)))
                let id = live.remove(at: index)
                #expect(table.removeValue(forKey: id) == model.removeValue(forKey: id))
            }
            if step % 997 == 0 { #expect(table.count == model.count) }
        }
        #expect(table.count == model.count)
        for (id, value) in model { #expect(table[id] == value) }
    }

    @Test("an entry that moved to the overflow, stored again while the window is empty, stays one entry")
    func overwriteInTheOverflowWithAnEmptyWindow() {
        var table = RequestTable<String>()
        let first = RequestID(rawValue: 1)
        table[first] = "held"
        // Thousands come and go: past the hard bound the first one moves to the overflow, and the window empties.
        for raw in UInt64(2)...5000 {
            table[RequestID(rawValue: raw)] = "brief"
            table.removeValue(forKey: RequestID(rawValue: raw))
        }
        #expect(table.windowLength == 0 && table.count == 1)
        table[first] = "admitted"
        #expect(table.count == 1, "stored where it is, not a second copy in the window")
        #expect(table[first] == "admitted")
        // The next ID starts the window afresh (no holes from 1 to it).
        table[RequestID(rawValue: 5001)] = "next"
        #expect(table.windowLength == 1)
        #expect(table.removeValue(forKey: first) == "admitted")
        #expect(table[first] == nil && table.count == 1)
        var seen: [RequestID] = []
        table.forEach { id, _ in seen.append(id) }
        #expect(seen == [RequestID(rawValue: 5001)])
    }

    @Test("overwriting and removing twice")
    func overwrite() {
        var table = RequestTable<String>()
        table[RequestID(rawValue: 10)] = "a"
        table[RequestID(rawValue: 10)] = "b"
        table[RequestID(rawValue: 12)] = "c"
        #expect(table.count == 2)
        #expect(table[RequestID(rawValue: 10)] == "b")
        #expect(table[RequestID(rawValue: 11)] == nil)
        #expect(table.removeValue(forKey: RequestID(rawValue: 10)) == "b")
        #expect(table.removeValue(forKey: RequestID(rawValue: 10)) == nil)
        table[RequestID(rawValue: 3)] = "old"
        #expect(table[RequestID(rawValue: 3)] == "old")
        #expect(table.count == 2)
    }

    @Test("holes left by completions stay until compaction, which brings the window back to twice the live entries")
    func compaction() {
        var table = RequestTable<Int>()
        for raw in UInt64(1)...100_000 { table[RequestID(rawValue: raw)] = Int(raw) }
        // Four in five end (as when a fix completes the coarser levels): no entry moves on that path.
        for raw in UInt64(1)...100_000 where raw % 5 != 0 { table.removeValue(forKey: RequestID(rawValue: raw)) }
        #expect(table.count == 20_000)
        #expect(table.windowLength > 2 * table.count)
        #expect(table.needsCompaction)
        table.compact()
        #expect(!table.needsCompaction)
        #expect(table.windowLength <= 2 * table.count)
        #expect(table.count == 20_000)
        for raw in UInt64(1)...100_000 {
            #expect(table[RequestID(rawValue: raw)] == (raw % 5 == 0 ? Int(raw) : nil))
        }
    }

    @Test("a draining window moves nothing: it keeps its length while both ends live, then shrinks from the ends")
    func drainMovesNothing() {
        var table = RequestTable<Int>()
        let count: UInt64 = 100_000
        for raw in UInt64(1)...count { table[RequestID(rawValue: raw)] = Int(raw) }
        var rng = SplitMix64(seed: 3)
        var middle = Array(UInt64(2)..<count)
        middle.shuffle(using: &rng)
        for raw in middle { table.removeValue(forKey: RequestID(rawValue: raw)) }
        // Far past eight holes per live entry, yet no removal migrated the two ends away.
        #expect(table.count == 2)
        #expect(table.windowLength == Int(count))
        table.removeValue(forKey: RequestID(rawValue: 1))
        #expect(table.windowLength == 1)
        #expect(table[RequestID(rawValue: count)] == Int(count))
        table.removeValue(forKey: RequestID(rawValue: count))
        #expect(table.isEmpty && table.windowLength == 0)
    }

    @Test("never compacted, the window stays within eight times the live entries")
    func hardBound() {
        var table = RequestTable<Int>()
        // One request lives forever at the front while a million others come and go behind it.
        table[RequestID(rawValue: 1)] = 1
        var live: [UInt64] = []
        for raw in UInt64(2)...1_000_000 {
            table[RequestID(rawValue: raw)] = 0
            live.append(raw)
            if live.count > 100 { table.removeValue(forKey: RequestID(rawValue: live.removeFirst())) }
        }
        #expect(table.count == 101)
        #expect(table.windowLength <= max(4096, 8 * table.count) + 1)
        #expect(table[RequestID(rawValue: 1)] == 1)
    }
}
