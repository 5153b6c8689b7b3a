import Foundation

/// The work a run's settings ask for, bounded before anything runs: settings that each pass their own check can
/// still combine into a run of hours with nothing printed (a tiny arrival rate over very short on periods, the
/// synthetic receiver stepped through years at 100 fixes a second, a commuting day on the wall clock).
///
/// Three measures, each refused past its limit with the reason and what to change:
/// - **on periods drawn**: an on/off process draws on and off periods until one holds an arrival; at
///   `rate · meanOn` arrivals per on period, `n` arrivals need about `n / (rate · meanOn)` of them;
/// - **receiver steps**: the synthetic receiver and its mover are simulated through every second of the run, and
///   through every fix interval when fixes come faster than one a second: `span · max(1, fixRate)` steps;
/// - **real time**: on the wall clock the run lasts its span.
public struct RunBudget: Sendable {
    /// The most on periods a plan may draw: about two seconds of drawing.
    public static let mostOnPeriods = 1e8
    /// The most receiver steps a run may simulate: about ten seconds of simulation, 230 days of virtual time at one
    /// fix a second (within the longest span a plan's arrivals are drawn over, ``OnOffArrivals/longestSpan``).
    public static let mostReceiverSteps = 2e7
    /// The longest run on the wall clock, in seconds.
    public static let longestWallRun = 3_600.0

    /// How many operations the run plans.
    public var operations: Int
    /// How long the arrivals take on average, in seconds.
    public var expectedSpan: Double
    /// On periods the arrivals need on average (0 for arrivals without on periods).
    public var expectedOnPeriods: Double
    /// Fixes per second of the synthetic receiver.
    public var fixRate: Double
    /// Whether the run is on the wall clock.
    public var wallClock: Bool

    /// The work of a run of `operations` operations whose arrivals take `expectedSpan` seconds and need
    /// `expectedOnPeriods` on periods on average, with the synthetic receiver at `fixRate` fixes a second.
    public init(operations: Int, expectedSpan: Double, expectedOnPeriods: Double, fixRate: Double, wallClock: Bool) {
        self.operations = operations
        self.expectedSpan = expectedSpan
        self.expectedOnPeriods = expectedOnPeriods
        self.fixRate = fixRate
        self.wallClock = wallClock
    }

    /// Receiver steps the run simulates on average.
    public var receiverSteps: Double { expectedSpan * max(1, fixRate) }

    /// Refuses a run past any of the limits, naming the measure and what to change.
    public func check() throws(LocbenchError) {
        if expectedOnPeriods > Self.mostOnPeriods {
            throw .badArgument(
                "--arrival-rate with --on-period: an on period holds \(Self.figure(Double(operations) / expectedOnPeriods)) arrivals on average, so "
                    + "\(Self.operations(operations)) would draw about \(Self.figure(expectedOnPeriods)) on and off periods (at most \(Self.figure(Self.mostOnPeriods))): "
                    + "raise the rate, lengthen --on-period or lower --requests")
        }
        if wallClock && expectedSpan > Self.longestWallRun {
            throw .badArgument(
                "--clock wall runs in real time, and \(Self.operations(operations)) at these arrivals take about \(Self.duration(expectedSpan)) "
                    + "(at most \(Self.duration(Self.longestWallRun))): raise --arrival-rate, use --arrival burst, lower --requests or leave out --clock wall")
        }
        if receiverSteps > Self.mostReceiverSteps {
            let perSecond = fixRate > 1 ? " at \(Self.figure(fixRate)) fixes a second" : ""
            throw .badArgument(
                "\(Self.operations(operations)) at these arrivals take about \(Self.duration(expectedSpan)) of virtual time; the synthetic receiver is simulated "
                    + "through all of it\(perSecond), \(Self.figure(receiverSteps)) steps (at most \(Self.figure(Self.mostReceiverSteps))): "
                    + (fixRate > 1 ? "raise --arrival-rate, lower --requests or lower --fix-rate" : "raise --arrival-rate or lower --requests"))
        }
    }

    /// The figures' locale: the same messages on every machine.
    static let locale = Locale(identifier: "en_US")

    /// "1 operation", "10 operations".
    static func operations(_ count: Int) -> String { count == 1 ? "1 operation" : "\(count.formatted(.number.locale(Self.locale))) operations" }

    /// A count as people read it: 1,234 or 2.5e+12.
    static func figure(_ value: Double) -> String {
        guard value.isFinite else { return "an unbounded number of" }
        if value < 0.01 { return value.formatted(.number.locale(Self.locale).notation(.scientific).precision(.significantDigits(2))) }
        if value < 1 { return String((value * 100).rounded() / 100) }
        if value < 1e15 { return Int(value.rounded()).formatted(.number.locale(Self.locale)) }
        return value.formatted(.number.locale(Self.locale).notation(.scientific).precision(.significantDigits(2)))
    }

    /// A span as people read it: "40 minutes", "3.2 hours", "12 days", "31 years".
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "forever" }
        let (value, unit): (Double, String) =
            switch seconds {
            case ..<120: (seconds, "seconds")
            case ..<7_200: (seconds / 60, "minutes")
            case ..<172_800: (seconds / 3_600, "hours")
            case ..<(2 * 31_557_600): (seconds / 86_400, "days")
            default: (seconds / 31_557_600, "years")
            }
        return value < 100 ? "\((value * 10).rounded() / 10) \(unit)" : "\(figure(value)) \(unit)"
    }
}
