import Testing

@testable import LocationEngine

/// A fix that completes many one-shots can do so in pieces (`completionPiece`), so that an owner
/// hands over timeouts that fall due in between; the requests the fix satisfies still succeed.
@Suite("Fix completion in pieces")
struct FixCompletionTests {
    @Test("1,000 satisfied one-shots complete 100 at a time, each exactly once, and the source stops after the last")
    func pieces() {
        var h = Harness(completionPiece: 100)
        for index in 0..<1_000 { h.oneShot("r\(index)", .block) }
        h.fix(50)
        #expect(h.completionOrder.count == 100)
        #expect(h.machine.isCompletingFix)
        #expect(h.sourceCommands == [.start(.medium)], "the source stays on while requests are still being completed")
        var calls = 0
        while h.machine.isCompletingFix {
            h.continueFix()
            calls += 1
        }
        #expect(calls == 9)
        #expect(h.completionOrder == (0..<1_000).map { "r\($0)" }, "submission order within a level")
        #expect(h.results.values.allSatisfy { $0.count == 1 && $0[0].status == .success && $0[0].location?.horizontalAccuracy == 50 })
        #expect(h.sourceCommands.last == .stop)
        #expect(h.machine.statistics(now: h.now).oneShotsSucceeded == 1_000)
        #expect(h.machine.index.abandoned == 0)
    }

    @Test("a deadline passing between pieces: a request the fix satisfies succeeds, one it does not satisfy times out")
    func deadlinesBetweenPieces() {
        var h = Harness(completionPiece: 10)
        for index in 0..<50 { h.oneShot("r\(index)", .block, timeout: .seconds(1)) }
        h.oneShot("custom", .custom(metres: 80, maximumAge: .seconds(60)), timeout: .seconds(1))
        h.oneShot("room", .room, timeout: .seconds(1))
        h.fix(50)
        #expect(h.completionOrder.count == 10)
        h.continueFix(advancingBy: .seconds(2))  // every deadline has passed now
        #expect(h.onlyResult("room")?.status == .timedOut)
        #expect(h.onlyResult("custom")?.status == .success)
        while h.machine.isCompletingFix { h.continueFix() }
        for index in 0..<50 { #expect(h.onlyResult("r\(index)")?.status == .success) }
        #expect(h.completionOrder.count == 52)
        let statistics = h.machine.statistics(now: h.now)
        #expect(statistics.oneShotsSucceeded == 51)
        #expect(statistics.oneShotsTimedOut == 1)
        #expect(h.machine.index.abandoned == 1, "only the timed-out room request's entry, dropped lazily")
        #expect(h.machine.nextWakeup == nil, "no deadline of an ended request is left to wake for")
    }

    @Test("any other event completes the rest first; a cancel between pieces takes only its request")
    func otherEventsFinishFirst() {
        var h = Harness(completionPiece: 10)
        for index in 0..<30 { h.oneShot("r\(index)", .block) }
        h.fix(50)
        h.cancel("r25")
        #expect(h.machine.isCompletingFix, "a cancel does not finish the completion")
        h.oneShot("late", .block)  // answered from the cached fix, after everything the fix completes
        #expect(!h.machine.isCompletingFix)
        #expect(h.completionOrder.last == "late")
        #expect(h.completionOrder.count == 30)
        #expect(h.results["r25"] == nil)
        #expect(h.cancelled == ["r25"])
        #expect(h.machine.index.abandoned == 0)
    }

    @Test("an authorization change due between pieces lets the fix complete first")
    func authorizationChangeBetweenPieces() {
        var h = Harness(completionPiece: 10)
        for index in 0..<30 { h.oneShot("r\(index)", .block) }
        h.fix(50)
        h.receive(Harness.picture(.unauthorized(.denied), .full), after: .seconds(1))
        h.continueFix(advancingBy: .seconds(2))
        #expect(!h.machine.isCompletingFix)
        #expect(h.results.values.allSatisfy { $0.map(\.status) == [.success] })
        #expect(h.results.count == 30)
    }

    @Test("custom accuracies too old for the fix go back to the index when the completion ends")
    func customRecency() {
        var h = Harness(completionPiece: 2)
        for index in 0..<5 { h.oneShot("fresh\(index)", .custom(metres: 100, maximumAge: .seconds(60))) }
        h.oneShot("strict", .custom(metres: 100, maximumAge: .seconds(1)))
        h.fix(50, age: .seconds(10))
        while h.machine.isCompletingFix { h.continueFix() }
        #expect(h.completionOrder.count == 5)
        #expect(h.results["strict"] == nil)
        h.fix(50)
        #expect(h.onlyResult("strict")?.status == .success)
    }
}
