import LocationEngineTestKit
import Testing
@testable import LocationEngine

@Suite("SubmissionOrderedTable (values by ID, walked in ID order)")
struct SubmissionOrderedTableTests {
    @Test("matches an ordered list under random stores, updates and removals, holes closed on the way")
    func modelCheck() {
        var rng = SplitMix64(seed: 11)
        var table = SubmissionOrderedTable<Int>()
        var model: [(id: RequestID, value: Int)] = []
        var next: UInt64 = 1
        for step in 0..<50_000 {
            let roll = rng.int(100)
            if roll < 45 || model.isEmpty {
                let id = RequestID(rawValue: next)
                next += 1
                #expect(table.updateValue(step, forKey: id) == nil)
                model.append((id, step))
            } else if roll < 55 {
                // An update keeps the entry's place.
                let index = rng.int(model.count)
                #expect(table.updateValue(step, forKey: model[index].id) == model[index].value)
                model[index].value = step
            } else {
                // Bursts of removals from anywhere, so that the holes pile up and get closed.
                for _ in 0..<(1 + rng.int(3)) where !model.isEmpty {
                    let removed = model.remove(at: rng.int(model.count))
                    #expect(table.removeValue(forKey: removed.id) == removed.value)
                }
            }
            if step % 499 == 0 {
                #expect(table.map(\.id) == model.map(\.id))
                #expect(table.map(\.value) == model.map(\.value))
            }
        }
        #expect(table.count == model.count)
        #expect(table.map(\.id) == model.map(\.id))
        for entry in model { #expect(table[entry.id] == entry.value) }
        #expect(table[RequestID(rawValue: next)] == nil)
        #expect(table.removeValue(forKey: RequestID(rawValue: next)) == nil)
    }

    @Test("updates every value in place, in ID order")
    func updateEach() {
        var table = SubmissionOrderedTable<Int>()
        for raw in [5, 3, 9, 1] as [UInt64] { table.updateValue(Int(raw), forKey: RequestID(rawValue: raw)) }
        _ = table.removeValue(forKey: RequestID(rawValue: 9))
        var seen: [UInt64] = []
        table.updateEach { id, value in
            seen.append(id.rawValue)
            value *= 10
        }
        #expect(seen == [1, 3, 5])
        #expect(table.map(\.value) == [10, 30, 50])
        #expect(table.count == 3 && !table.isEmpty)
    }

    @Test("emptied, it is empty, and takes new entries in order")
    func emptied() {
        var table = SubmissionOrderedTable<String>()
        let ids = (1...40).map { RequestID(rawValue: $0) }
        for id in ids { table.updateValue("\(id.rawValue)", forKey: id) }
        for id in ids.reversed() { #expect(table.removeValue(forKey: id) == "\(id.rawValue)") }
        #expect(table.isEmpty && table.map(\.id).isEmpty)
        table.updateValue("b", forKey: RequestID(rawValue: 2))
        table.updateValue("c", forKey: RequestID(rawValue: 3))
        #expect(table.map(\.value) == ["b", "c"])
    }

    @Test("an ID smaller than the last goes in its place by ID, holes and all")
    func outOfOrder() {
        var table = SubmissionOrderedTable<UInt64>()
        for raw in stride(from: 10 as UInt64, through: 100, by: 10) { table.updateValue(raw, forKey: RequestID(rawValue: raw)) }
        _ = table.removeValue(forKey: RequestID(rawValue: 40))
        _ = table.removeValue(forKey: RequestID(rawValue: 70))
        for raw in [45, 5, 95, 41] as [UInt64] { table.updateValue(raw, forKey: RequestID(rawValue: raw)) }
        let expected: [UInt64] = [5, 10, 20, 30, 41, 45, 50, 60, 80, 90, 95, 100]
        #expect(table.map(\.value) == expected)
        for raw in expected { #expect(table[RequestID(rawValue: raw)] == raw) }
        #expect(table.removeValue(forKey: RequestID(rawValue: 45)) == 45)
        #expect(table.map(\.id.rawValue) == expected.filter { $0 != 45 })
    }
}
