import Testing
@testable import LocationSources

/// The reconnect decisions, driven by hand: no sockets, no clock.
struct ConnectionStateMachineTests {
    typealias Machine = ConnectionStateMachine

    @Test func backoffDoublesUpToTheCapAndResetsAfterAWorkingConnection() {
        let policy = ReconnectPolicy(initialDelay: .milliseconds(250), maximumDelay: .seconds(8), giveUpAfter: nil)
        #expect((1...8).map { policy.delay(afterFailures: $0) } == [
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8), .seconds(8),
        ])
        var machine = Machine(policy: policy)
        #expect(machine.start() == [.open(attempt: 1)])
        #expect(machine.openFailed(attempt: 1, reason: "refused", now: .seconds(0)) == [
            .reportDisconnected(.openFailed("refused")), .scheduleRetry(attempt: 2, delay: .milliseconds(250)),
        ])
        #expect(machine.retryDue(attempt: 2) == [.open(attempt: 2)])
        #expect(machine.openFailed(attempt: 2, reason: "refused", now: .seconds(1)) == [.scheduleRetry(attempt: 3, delay: .milliseconds(500))])
        #expect(machine.retryDue(attempt: 3) == [.open(attempt: 3)])
        #expect(machine.opened(attempt: 3) == [.armAnswerTimeout(attempt: 3, delay: .seconds(5))])
        #expect(machine.answer(attempt: 3, now: .seconds(2)) == (true, [.reportConnected]))
        #expect(machine.answer(attempt: 3, now: .seconds(3)) == (true, []))
        // The working link drops: told once, first retry after the initial delay again.
        #expect(machine.closed(attempt: 3, reason: nil, reopen: true, now: .seconds(100)) == [
            .reportDisconnected(.closed(nil)), .scheduleRetry(attempt: 4, delay: .milliseconds(250)),
        ])
    }

    @Test("an open that fails after its link delivered input is a failure like any other: retried, not left connected with no link")
    func anOpenThatFailsAfterInputIsRetried() {
        var machine = Machine(policy: ReconnectPolicy())
        _ = machine.start()
        let used = machine.received(attempt: 1)
        #expect(used, "input before the open is seen is the current attempt's")
        #expect(machine.openFailed(attempt: 1, reason: "gone", now: .seconds(0)) == [
            .reportDisconnected(.openFailed("gone")), .scheduleRetry(attempt: 2, delay: .milliseconds(250)),
        ])
        #expect(machine.retryDue(attempt: 2) == [.open(attempt: 2)])
    }

    @Test func givesUpWhenFailuresLastLongerThanTheLimit() {
        var machine = Machine(policy: ReconnectPolicy(giveUpAfter: .seconds(10)))
        _ = machine.start()
        _ = machine.openFailed(attempt: 1, reason: "refused", now: .seconds(0))
        _ = machine.retryDue(attempt: 2)
        _ = machine.openFailed(attempt: 2, reason: "refused", now: .seconds(4))
        _ = machine.retryDue(attempt: 3)
        #expect(machine.openFailed(attempt: 3, reason: "refused", now: .seconds(10)) == [
            .reportGaveUp(failures: 3, lastFailure: .openFailed("refused"))
        ])
        #expect(machine.isRunning)
        #expect(machine.retryDue(attempt: 4) == [])
        #expect(machine.stop() == [])
        #expect(machine.start() == [.open(attempt: 4)], "a new start begins afresh")
    }

    @Test func aSilentPeerCountsAsAFailure() {
        var machine = Machine(policy: ReconnectPolicy(answerTimeout: .seconds(2), giveUpAfter: .seconds(60)))
        _ = machine.start()
        _ = machine.opened(attempt: 1)
        #expect(machine.answerTimeout(attempt: 1, now: .seconds(2)) == [
            .close(attempt: 1, farewell: false), .reportInputEnded, .reportDisconnected(.silent), .scheduleRetry(attempt: 2, delay: .milliseconds(250)),
        ])
        #expect(machine.closed(attempt: 1, reason: nil, reopen: true, now: .seconds(2)) == [], "the close of a replaced link is ignored")
    }

    @Test func staleEventsAreIgnoredAndStopSendsTheFarewell() {
        var machine = Machine(policy: ReconnectPolicy())
        _ = machine.start()
        _ = machine.opened(attempt: 1)
        _ = machine.answer(attempt: 1, now: .zero)
        #expect(machine.answerTimeout(attempt: 1, now: .seconds(9)) == [], "answered: the timer is moot")
        #expect(machine.stop() == [.close(attempt: 1, farewell: true)])
        #expect(machine.answer(attempt: 1, now: .zero) == (false, []))
        #expect(machine.closed(attempt: 1, reason: nil, reopen: true, now: .seconds(10)) == [])
        #expect(machine.start() == [.open(attempt: 2)])
        #expect(machine.stop() == [.close(attempt: 2, farewell: false)], "still connecting: nothing to say goodbye on")
        #expect(machine.opened(attempt: 2) == [.close(attempt: 2, farewell: false)], "a connect that lands after stop is closed")
    }

    @Test func aFiniteStreamEndsWithoutRetrying() {
        var machine = Machine(policy: ReconnectPolicy())
        _ = machine.start()
        _ = machine.opened(attempt: 1)
        _ = machine.answer(attempt: 1, now: .zero)
        #expect(machine.closed(attempt: 1, reason: nil, reopen: false, now: .zero) == [.reportEndOfStream])
        #expect(machine.isRunning)
    }

    @Test("a looped log that ends cleanly plays again with no disconnection told and no backoff: at once after a pass of the initial delay or more, after the rest of it when shorter; one never understood backs off")
    func aLoopedLogPlaysAgainWithoutBackoff() {
        var machine = Machine(policy: ReconnectPolicy(initialDelay: .milliseconds(250)))
        #expect(machine.start() == [.open(attempt: 1)])
        var now = Duration.zero
        for pass in UInt64(1)...4 {
            _ = machine.opened(attempt: pass)
            #expect(machine.answer(attempt: pass, now: now).0)
            // A pass of a second ends: the next opens at once.
            now += .seconds(1)
            #expect(machine.closed(attempt: pass, reason: nil, reopen: true, replay: true, now: now) == [.open(attempt: pass + 1)])
        }
        // Passes of 5 ms (one line read as fast as possible): each waits out the rest of the initial delay,
        // the same every time (nothing failed), and is never a busy loop. Each retry is the next pass's attempt.
        for pass in UInt64(5)...12 {
            _ = machine.opened(attempt: pass)
            #expect(machine.answer(attempt: pass, now: now).0)
            now += .milliseconds(5)
            #expect(machine.closed(attempt: pass, reason: nil, reopen: true, replay: true, now: now) == [
                .scheduleRetry(attempt: pass + 1, delay: .milliseconds(245))
            ])
            #expect(!machine.isCurrent(pass + 1))
            now += .milliseconds(245)
            #expect(machine.retryDue(attempt: pass + 1) == [.open(attempt: pass + 1)])
        }
        _ = machine.opened(attempt: 13)
        #expect(machine.closed(attempt: 13, reason: nil, reopen: true, replay: true, now: now + .seconds(1)) == [
            .reportDisconnected(.closed(nil)), .scheduleRetry(attempt: 14, delay: .milliseconds(250)),
        ], "a pass with nothing understood is a failure")
    }

    @Test("a looped log read faster than the smallest backoff, with no initial delay, still waits between passes")
    func aLoopedLogWithNoInitialDelayIsNoBusyLoop() {
        var machine = Machine(policy: ReconnectPolicy(initialDelay: .zero))
        _ = machine.start()
        _ = machine.opened(attempt: 1)
        _ = machine.answer(attempt: 1, now: .zero)
        #expect(machine.closed(attempt: 1, reason: nil, reopen: true, replay: true, now: .zero) == [
            .scheduleRetry(attempt: 2, delay: ReconnectPolicy.smallestBackoff)
        ])
    }

    @Test func dataBeforeTheOpenIsSeenCountsAndTheLateOpenIsHarmless() {
        var machine = Machine(policy: ReconnectPolicy())
        _ = machine.start()
        #expect(machine.answer(attempt: 1, now: .zero) == (true, [.reportConnected]))
        #expect(machine.opened(attempt: 1) == [], "already answered: no answer timer")
        #expect(machine.isCurrent(1))
        #expect(machine.stop() == [.close(attempt: 1, farewell: true)])
    }

    @Test("a peer that answers and drops at once is no working connection: its retries back off to the longest wait, and it is never given up on")
    func aFlappingPeerBacksOffAndGivesUp() {
        var machine = Machine(policy: ReconnectPolicy(answerTimeout: .seconds(5), giveUpAfter: .seconds(30)))
        _ = machine.start()
        var now = Duration.zero
        var delays: [Duration] = []
        var attempt: UInt64 = 1
        var gaveUp = false
        for _ in 0..<50 where !gaveUp {
            _ = machine.opened(attempt: attempt)
            _ = machine.answer(attempt: attempt, now: now)
            now += .milliseconds(10)
            for action in machine.closed(attempt: attempt, reason: "reset", reopen: true, now: now) {
                switch action {
                case .scheduleRetry(let next, let delay):
                    delays.append(delay)
                    now += delay
                    attempt = next
                    _ = machine.retryDue(attempt: next)
                case .reportGaveUp: gaveUp = true
                default: break
                }
            }
        }
        #expect(Array(delays.prefix(7)) == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
        #expect(!gaveUp, "it answers every time: reachable")
        // One that worked for the answer timeout and then drops starts afresh.
        var steady = Machine(policy: ReconnectPolicy(answerTimeout: .seconds(5), giveUpAfter: .seconds(30)))
        _ = steady.start()
        _ = steady.openFailed(attempt: 1, reason: "refused", now: .zero)
        _ = steady.retryDue(attempt: 2)
        _ = steady.opened(attempt: 2)
        _ = steady.answer(attempt: 2, now: .seconds(1))
        #expect(steady.closed(attempt: 2, reason: nil, reopen: true, now: .seconds(6)) == [
            .reportDisconnected(.closed(nil)), .scheduleRetry(attempt: 3, delay: .milliseconds(250)),
        ])
    }

    @Test("bytes the source cannot read are no answer: the answer timeout closes the link as not understood, and a peer that sends them and hangs up is given up")
    func bytesTheSourceCannotReadAreNoAnswer() {
        var machine = Machine(policy: ReconnectPolicy(answerTimeout: .seconds(5), giveUpAfter: .seconds(30)))
        _ = machine.start()
        #expect(machine.opened(attempt: 1) == [.armAnswerTimeout(attempt: 1, delay: .seconds(5))])
        let read = machine.received(attempt: 1)
        #expect(read, "the input is still read: the source decides what it is")
        #expect(machine.answerTimeout(attempt: 1, now: .seconds(5)) == [
            .close(attempt: 1, farewell: false), .reportInputEnded, .reportDisconnected(.notUnderstood(closed: nil)), .scheduleRetry(attempt: 2, delay: .milliseconds(250)),
        ])
        // Bytes before the open was seen, none understood: the answer timer still starts at the open.
        _ = machine.retryDue(attempt: 2)
        let early = machine.received(attempt: 2)
        #expect(early)
        #expect(machine.opened(attempt: 2) == [.armAnswerTimeout(attempt: 2, delay: .seconds(5))])
        #expect(machine.answerTimeout(attempt: 2, now: .seconds(11)) == [
            .close(attempt: 2, farewell: false), .reportInputEnded, .scheduleRetry(attempt: 3, delay: .milliseconds(500)),
        ])
        // A peer that sends what it cannot read and hangs up at once: the give-up clock runs on from the first failure.
        var now = Duration.seconds(11)
        var attempt: UInt64 = 3
        var gaveUp: [ConnectionStateMachine.Action] = []
        for _ in 0..<50 where gaveUp.isEmpty {
            _ = machine.retryDue(attempt: attempt)
            _ = machine.opened(attempt: attempt)
            _ = machine.received(attempt: attempt)
            now += .seconds(1)
            for action in machine.closed(attempt: attempt, reason: "reset", reopen: true, now: now) {
                switch action {
                case .scheduleRetry(let next, let delay): (attempt, now) = (next, now + delay)
                case .reportGaveUp: gaveUp.append(action)
                default: break
                }
            }
        }
        #expect(gaveUp == [.reportGaveUp(failures: 8, lastFailure: .notUnderstood(closed: "reset"))], "at the first failure 30 s or more after the first (5 s, then 11 s to 40 s)")
        // An answer the source understands, among the bytes, makes the link work.
        var working = Machine(policy: ReconnectPolicy(answerTimeout: .seconds(5)))
        _ = working.start()
        _ = working.opened(attempt: 1)
        let heard = working.received(attempt: 1)
        #expect(heard)
        #expect(working.understood(attempt: 1, now: .seconds(1)) == [.reportConnected])
        #expect(working.understood(attempt: 1, now: .seconds(2)) == [], "told once")
        #expect(working.answerTimeout(attempt: 1, now: .seconds(5)) == [], "answered: the timer is moot")
    }

    @Test func aZeroInitialDelayStillBacksOff() {
        let policy = ReconnectPolicy(initialDelay: .zero, maximumDelay: .seconds(8))
        #expect((1...4).map { policy.delay(afterFailures: $0) } == [.zero, .milliseconds(20), .milliseconds(40), .milliseconds(80)])
    }
}

extension ConnectionStateMachine {
    /// The peer of `attempt` sends something the source understands, at `now`.
    mutating func answer(attempt: UInt64, now: Duration) -> (accept: Bool, actions: [Action]) {
        let accept = received(attempt: attempt)
        return (accept, accept ? understood(attempt: attempt, now: now) : [])
    }
}
