import LocationEngineTestKit
import Testing

@testable import LocationEngine

/// A core's owner need not pass the time before each event: what fell due by an event's instant happens
/// first whichever way (each event catches up). Two cores take one random script of requests, cancels, fixes, transient errors and
/// scheduled authorization changes; one owner passes the time to each event's instant first (as the
/// engine's shell does), the other hands the event over at its instant directly. Every request must end the
/// same way in both, and every subscription hear the same.
@Suite("What fell due happens first, whether or not the owner passed the time")
struct WhatFellDueFirstTests {
    private enum Step {
        case oneShot(LocationAccuracy, timeout: Duration?)
        case subscribe(duration: Duration?)
        case cancel(Int)
        case fix(metres: Double, east: Double)
        case transientError
        case authorization(AuthorizationState, after: Duration)
    }

    private static let pictures: [AuthorizationState] = [
        AuthorizationState(status: .authorizedWhenInUse, accuracy: .full),
        AuthorizationState(status: .authorizedAlways, accuracy: .full),
        AuthorizationState(status: .authorizedWhenInUse, accuracy: .reduced),
        AuthorizationState(status: .denied, accuracy: .full),
    ]

    private static func script(seed: UInt64, count: Int) -> [(wait: Duration, step: Step)] {
        var random = SplitMix64(seed: seed)
        let accuracies: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room]
        return (0..<count).map { _ in
            let wait = Duration.milliseconds(Int64(random.next() % 4_000))
            let step: Step
            switch random.next() % 12 {
            case 0..<4:
                let timeout: Duration? = random.next() % 4 == 0 ? nil : .milliseconds(Int64(500 + random.next() % 8_000))
                step = .oneShot(accuracies[Int(random.next() % 5)], timeout: timeout)
            case 4: step = .subscribe(duration: random.next() % 2 == 0 ? nil : .milliseconds(Int64(1_000 + random.next() % 10_000)))
            case 5, 6: step = .cancel(Int(random.next() % 64))
            case 7, 8, 9: step = .fix(metres: [3, 12, 60, 400, 2_000][Int(random.next() % 5)], east: Double(random.next() % 500))
            case 10: step = .transientError
            default: step = .authorization(pictures[Int(random.next() % 4)], after: .milliseconds(Int64(random.next() % 6_000)))
            }
            return (wait, step)
        }
    }

    /// Runs `script` on a fresh core; `passingTimeFirst`: the owner passes the time to each event's instant
    /// before handing the event over.
    private static func run(_ script: [(wait: Duration, step: Step)], passingTimeFirst: Bool) -> MachineHarness {
        var h = MachineHarness(picture: .authorizedWhenInUse())
        var tags: [String] = []
        for (index, (wait, step)) in script.enumerated() {
            if passingTimeFirst { h.advance(by: wait) } else { h.now = h.now + wait }
            switch step {
            case .oneShot(let accuracy, let timeout):
                tags.append("r\(index)")
                h.oneShot("r\(index)", accuracy, timeout: timeout)
            case .subscribe(let duration):
                tags.append("r\(index)")
                h.subscribe("r\(index)", SubscriptionOptions(duration: duration))
            case .cancel(let pick):
                // Every step hands an event over, so both owners see the same instants: a cancel of a
                // request that has ended is a no-op.
                if tags.isEmpty { h.transientError() } else { h.cancel(tags[pick % tags.count]) }
            case .fix(let metres, let east):
                h.fix(Location(latitude: 48.0, longitude: 11.0 + east * 1e-5, horizontalAccuracy: metres))
            case .transientError:
                h.transientError()
            case .authorization(let picture, let delay):
                h.receive(picture, after: delay)
            }
        }
        h.advance(by: Duration.seconds(3_600))
        return h
    }

    /// A one-shot's ending as both cores must agree on it (the reason a timeout names depends on the power
    /// planner's view, which a pass of time before the event can move; the outcome cannot).
    private static func endings(_ h: MachineHarness) -> [String: [String]] {
        h.results.mapValues { $0.map { "\($0.status) \($0.location.map { "\($0.longitude) ±\($0.horizontalAccuracy)" } ?? "none") \(String(describing: $0.age))" } }
    }

    @Test("random scripts end every request the same way whether or not the owner passed the time first", arguments: Array(UInt64(1)...40))
    func sameOutcomes(seed: UInt64) {
        let script = Self.script(seed: seed, count: 160)
        let passing = Self.run(script, passingTimeFirst: true)
        let direct = Self.run(script, passingTimeFirst: false)
        let a = Self.endings(direct), b = Self.endings(passing)
        let differing = Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted { Int($0.dropFirst())! < Int($1.dropFirst())! }
        #expect(differing.isEmpty, "\(differing.prefix(3).map { "\($0): direct \(a[$0] ?? []) passing \(b[$0] ?? [])" })")
        #expect(direct.events == passing.events)
        #expect(direct.machine.requests.count == 0 && passing.machine.requests.count == 0 || direct.machine.requests.count == passing.machine.requests.count)
        #expect(!passing.results.isEmpty, "the script made and ended one-shots")
    }
}
