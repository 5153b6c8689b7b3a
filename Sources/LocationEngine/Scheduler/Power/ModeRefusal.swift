/// A mode the running receiver was sent to and did not take: it confirmed another setting instead (the
/// command refused, unanswered, or its answer lost). The power planner plans from the setting the receiver
/// kept, not from the one it asked for, and asks for the mode again after a backoff that doubles with each
/// refusal in a row — 5 s, 10 s, 20 s, … at most 5 minutes — so that a receiver that never takes it is asked
/// a dozen times an hour, not on every request (see <doc:PowerPolicy>).
struct ModeRefusal: Sendable, Hashable {
    /// The mode asked for and not taken.
    let mode: PowerMode
    /// The setting the receiver confirmed instead: where it is.
    let kept: PowerMode
    /// Refusals of ``mode`` in a row, this one included.
    let inARow: Int
    /// When ``mode`` may be asked for again; `nil` once that instant passed (it is asked whenever demanded)
    /// or the source stopped.
    var retryAt: EngineInstant?

    /// The refusal confirmed at `now`, following `previous` (the refusal before it, if any).
    init(of mode: PowerMode, kept: PowerMode, after previous: ModeRefusal?, now: EngineInstant) {
        self.mode = mode
        self.kept = kept
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

    /// The mode to run for `demanded` at `now` while the source runs: the setting kept while the refused mode
    /// is demanded and its backoff lasts, else `demanded`. Past its backoff the retry falls due (``retryAt``
    /// cleared) and `demanded` is asked for as it is.
    mutating func mode(for demanded: PowerMode?, now: EngineInstant) -> PowerMode? {
        guard let retryAt else { return demanded }
        if now >= retryAt {
            self.retryAt = nil
            return demanded
        }
        return demanded == mode ? kept : demanded
    }
}
