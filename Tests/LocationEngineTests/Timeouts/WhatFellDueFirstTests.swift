import LocationEngineTestKit
import Testing

@testable import LocationEngine

/// A core's owner need not pass the time before an event: what fell due by the event's instant happens first
/// whichever way (each event but a withdrawal catches up; a withdrawal is taken as made before its owner
/// handed it over, so an owner passes the time before one when it wants what fell due to come first). Two
/// cores take one random script of requests, monitors, withdrawals, fixes, errors, sessions' ends and
/// scheduled authorization changes, with long idle gaps and a restart-aware receiver (so the power
/// planner's steps fall due several at once); one owner passes the time before every event, the other only
/// before withdrawals. Every request must end the same way in both, every subscription and monitor hear the
/// same, and the pictures follow the same course.
@Suite("What fell due happens first, whether or not the owner passed the time")
struct WhatFellDueFirstTests {
    private enum Step {
        case oneShot(LocationAccuracy, timeout: Duration?, purposeKey: String?)
        case subscribe(duration: Duration?)
        case monitor(loitering: Duration?)
        case withdraw(Int, Withdrawal)
        case fix(metres: Double, east: Double)
        case transientError
        case endSession
        case authorization(AuthorizationState, after: Duration)
    }

    private static let pictures: [AuthorizationState] = [
        .authorizedWhenInUse(), AuthorizationState(status: .authorizedAlways, accuracy: .full),
        .authorizedWhenInUse(accuracy: .reduced), AuthorizationState(status: .denied, accuracy: .full),
        .authorizedWhenInUse(oneTime: true), AuthorizationState(status: .notDetermined, accuracy: .full),
    ]

    private static func script(seed: UInt64, count: Int) -> [(wait: Duration, step: Step)] {
        var random = SplitMix64(seed: seed)
        let accuracies: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room]
        return (0..<count).map { _ in
            // Now and then a long gap: the receiver's steps down (standby, then off) fall due together.
            let wait: Duration = random.next() % 25 == 0 ? .seconds(Int64(280 + random.next() % 400)) : .milliseconds(Int64(random.next() % 4_000))
            let step: Step
            switch random.next() % 16 {
            case 0..<4:
                let timeout: Duration? = random.next() % 4 == 0 ? nil : .milliseconds(Int64(500 + random.next() % 8_000))
                step = .oneShot(accuracies[Int(random.next() % 5)], timeout: timeout, purposeKey: random.next() % 3 == 0 ? "k" : nil)
            case 4: step = .subscribe(duration: random.next() % 2 == 0 ? nil : .milliseconds(Int64(1_000 + random.next() % 10_000)))
            case 5: step = .withdraw(Int(random.next() % 64), .cancel)
            case 6: step = .withdraw(Int(random.next() % 64), .forceComplete)
            case 7, 8, 9: step = .fix(metres: [3, 12, 60, 400, 2_000][Int(random.next() % 5)], east: Double(random.next() % 500))
            case 10: step = .transientError
            case 11: step = .endSession
            case 12: step = .monitor(loitering: random.next() % 2 == 0 ? nil : .milliseconds(Int64(random.next() % 5_000)))
            default: step = .authorization(pictures[Int(random.next() % 6)], after: .milliseconds(Int64(random.next() % 6_000)))
            }
            return (wait, step)
        }
    }

    /// Runs `script` on a fresh core; `passingTimeFirst`: the owner passes the time to each event's instant
    /// before handing the event over (else only before a withdrawal).
    private static func run(_ script: [(wait: Duration, step: Step)], passingTimeFirst: Bool) -> MachineHarness {
        var h = MachineHarness(
            linger: .seconds(2), purposeKeys: ["k"], picture: .authorizedWhenInUse(), powerProfile: RestartAwarePowerTests.profile,
            powerDown: .restartAware(trust: 1))
        var tags: [String] = []
        for (index, (wait, step)) in script.enumerated() {
            var passes = passingTimeFirst
            if case .withdraw = step { passes = true }
            if passes { h.advance(by: wait) } else { h.now = h.now + wait }
            switch step {
            case .oneShot(let accuracy, let timeout, let purposeKey):
                tags.append("r\(index)")
                h.oneShot("r\(index)", accuracy, timeout: timeout, purposeKey: purposeKey)
            case .subscribe(let duration):
                tags.append("r\(index)")
                h.subscribe("r\(index)", SubscriptionOptions(duration: duration))
            case .monitor(let loitering):
                tags.append("r\(index)")
                h.monitor("r\(index)", options: GeofenceOptions(loiteringDelay: loitering))
            case .withdraw(let pick, let withdrawal):
                // Every step hands an event over, so both owners see the same instants: a withdrawal of a
                // request that has ended is a no-op.
                guard !tags.isEmpty else {
                    h.transientError()
                    continue
                }
                if withdrawal == .cancel { h.cancel(tags[pick % tags.count]) } else { h.forceComplete(tags[pick % tags.count]) }
            case .fix(let metres, let east):
                h.fix(east: east, accuracy: metres)
            case .transientError:
                h.transientError()
            case .endSession:
                h.endSession()
            case .authorization(let picture, let delay):
                h.receive(picture, after: delay)
            }
        }
        h.advance(by: .seconds(3_600))
        return h
    }

    /// A one-shot's ending as both cores must agree on it (the reason a timeout names depends on the power
    /// planner's view, which a pass of time before the event can move; the outcome cannot).
    private static func endings(_ h: MachineHarness) -> [String: [String]] {
        h.results.mapValues { $0.map { "\($0.status) \($0.location.map { "\($0.longitude) ±\($0.horizontalAccuracy)" } ?? "none") \(String(describing: $0.age))" } }
    }

    @Test("random scripts end every request the same way whether or not the owner passed the time first", arguments: Array(UInt64(1)...60))
    func sameOutcomes(seed: UInt64) {
        let script = Self.script(seed: seed, count: 160)
        let passing = Self.run(script, passingTimeFirst: true)
        let direct = Self.run(script, passingTimeFirst: false)
        let a = Self.endings(direct)
        let b = Self.endings(passing)
        let differing = Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted()
        #expect(differing.isEmpty, "\(differing.prefix(3).map { "\($0): direct \(a[$0] ?? []) passing \(b[$0] ?? [])" })")
        #expect(direct.events == passing.events)
        #expect(direct.transitions == passing.transitions)
        #expect(direct.cancelled.sorted() == passing.cancelled.sorted())
        #expect(direct.pictures == passing.pictures)
        #expect(direct.machine.requests.count == passing.machine.requests.count)
        #expect(direct.machine.alarmsAreSet && passing.machine.alarmsAreSet)
        #expect(b.values.contains { $0.contains { $0.hasPrefix("timed out") } }, "the script timed one-shots out")
    }
}
