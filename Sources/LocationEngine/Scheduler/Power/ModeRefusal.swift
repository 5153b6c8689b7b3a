/// A mode the running receiver was sent to and did not take: it confirmed another setting instead (the
/// command refused, unanswered, or its answer lost). The power planner plans from the setting the receiver
/// kept, not from the one it asked for, and asks for the mode again after a backoff that doubles with each
/// refusal in a row — 5 s, 10 s, 20 s, … at most 5 minutes — so that a receiver that never takes it is asked
/// a dozen times an hour, not on every request (see <doc:PowerPolicy>). The retry needs no alarm of its own: it
/// is the first change into the mode at or after the backoff's end, at the next request or fix (a running
/// receiver keeps sending fixes).
struct ModeRefusal: Sendable, Hashable {
    /// The mode asked for and not taken.
    let mode: PowerMode
    /// Refusals of ``mode`` in a row, this one included.
    let inARow: Int
    /// When ``mode`` may be asked for again; `nil` once that instant passed (it is asked whenever demanded)
    /// or the source stopped.
    var retryAt: EngineInstant?

    /// The refusal confirmed at `now`, following `previous` (the refusal before it, if any).
    init(of mode: PowerMode, after previous: ModeRefusal?, now: EngineInstant) {
        self.mode = mode
        inARow = previous?.mode == mode ? previous!.inARow + 1 : 1
        retryAt = now + Self.backoff(inARow: inARow)
    }

    /// How long after the `inARow`-th refusal in a row the mode is asked for again.
    static func backoff(inARow: Int) -> Duration {
        min(firstBackoff * (1 << min(max(inARow - 1, 0), 16)), longestBackoff)
    }

    /// The wait after a first refusal, and the longest wait.
    static let firstBackoff = Duration.seconds(5)
    static let longestBackoff = Duration.seconds(300)

    /// Whether a change into `wanted` at `now` waits: it is the mode refused and its backoff lasts. Past the
    /// backoff the retry falls due (``retryAt`` cleared): the mode is asked for whenever it is wanted.
    mutating func holdsBack(_ wanted: PowerMode, now: EngineInstant) -> Bool {
        guard let retryAt else { return false }
        guard now < retryAt else {
            self.retryAt = nil
            return false
        }
        return wanted == mode
    }
}
