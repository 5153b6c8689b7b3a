/// Why a one-shot request ended without what it asked for, in words a person can act on: carried by a
/// result that timed out (``LocationResult/reason``) next to the best fix known.
///
/// ``code`` is stable and machine-readable; ``message`` says what happened and, where useful, what to do.
public struct EndingReason: Sendable, Hashable, CustomStringConvertible {
    /// A short identifier: one of the codes below, or a source's own error code (such as `geoclue.agent`)
    /// when that error is why nothing arrived.
    public var code: String
    /// What happened and what to do about it.
    public var message: String

    /// Creates a reason.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// Fixes arrived, but none met the accuracy and age asked for: the result carries the best of them.
    public static func accuracyNotReached(best: Location, age: Duration, finestReach: Double) -> EndingReason {
        let reach = finestReach > 0 ? "\(reachClause)\(metres(finestReach))" : ""
        return EndingReason(code: accuracyNotReachedCode, message: bestFixClause(best, age: age) + reach)
    }

    /// This reason told of `best`, `age` old, instead of the fix it named: an ``accuracyNotReached(best:age:finestReach:)``
    /// whose fix was coarsened after it was decided (accuracy became reduced), so that its words cannot give the
    /// measured error back. Any other reason is unchanged.
    func telling(of best: Location, age: Duration) -> EndingReason {
        guard code == Self.accuracyNotReachedCode else { return self }
        let reach = message.indices.first { message[$0...].hasPrefix(Self.reachClause) }.map { String(message[$0...]) } ?? ""
        return EndingReason(code: code, message: Self.bestFixClause(best, age: age) + reach)
    }

    private static let accuracyNotReachedCode = "accuracy_not_reached"
    private static let reachClause = "; the finest any source reaches is about "

    private static func bestFixClause(_ best: Location, age: Duration) -> String {
        "the best fix (±\(metres(best.horizontalAccuracy)), \(seconds(age)) old) did not meet the accuracy or age asked for"
    }

    /// A source reported an error and no fix came since: the error says why.
    public static func sourceError(_ error: SourceError) -> EndingReason {
        EndingReason(code: error.code, message: error.message)
    }

    /// A source runs and has given no fix since it started: a receiver still acquiring satellites, or a
    /// source with nothing to report yet.
    public static func acquiring(for running: Duration) -> EndingReason {
        EndingReason(
            code: "acquiring",
            message: "the source started \(seconds(running)) ago and has no fix yet: a receiver acquiring satellites (up to a minute from a cold start, longer indoors), or a source with nothing to report")
    }

    /// No source ran long enough to give a fix (the request's timeout came before any could start or answer).
    public static let noFix = EndingReason(code: "no_fix", message: "no source has given a fix yet")

    /// A distance in whole metres, to the nearest 100 m from a kilometre on. A fix's accuracy or a source's reach
    /// is any finite figure a source gave; one past a million kilometres (no distance on Earth) is said as such
    /// rather than made an integer it may not fit.
    private static func metres(_ value: Double) -> String {
        guard value < 1e9 else { return "over 1,000,000 km" }
        return value >= 1000 ? "\(Int((value / 100).rounded()) * 100) m" : "\(Int(value.rounded())) m"
    }

    /// A duration in seconds to a tenth; one past a million years is said as such.
    private static func seconds(_ duration: Duration) -> String {
        guard duration < .seconds(31_557_600_000_000) else { return "over a million years" }
        let tenths = Int((Double(duration.components.seconds) * 10 + Double(duration.components.attoseconds) / 1e17).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
