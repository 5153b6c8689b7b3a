/// A fix stamped on the engine's timeline.
struct StampedFix: Sendable, Hashable {
    /// The fix.
    var location: Location
    /// When the fix was taken, on the engine's timeline (arrival minus the age the source reported).
    var observedAt: EngineInstant

    /// The fix's age at `now` (never negative).
    func age(at now: EngineInstant) -> Duration { max(.zero, now - observedAt) }

    /// The finest standard level this fix meets at `now`.
    func achieved(at now: EngineInstant) -> AccuracyLevel? {
        AccuracyLevel.achieved(horizontalAccuracy: location.horizontalAccuracy, age: age(at: now))
    }
}

/// What the engine remembers of past fixes, in O(1) space: the newest fix, and for every standard
/// level the newest fix accurate enough for it.
///
/// That is enough to answer "the best fix known now" exactly: the best fix is the one that achieves
/// the finest level at `now`, ties going to the newest; a fix achieving level L is at least as accurate
/// as L, so the newest such fix sits in L's slot, and being newest it is also the most recent of them.
struct FixHistory: Sendable {
    private(set) var latest: StampedFix?
    private var newestMeeting: [StampedFix?] = Array(repeating: nil, count: AccuracyLevel.allCases.count)

    /// Remembers `fix`.
    /// - Complexity: O(1) (at most five slot writes).
    mutating func record(_ fix: StampedFix) {
        if latest.map({ fix.observedAt >= $0.observedAt }) ?? true { latest = fix }
        for level in AccuracyLevel.allCases where fix.location.horizontalAccuracy <= level.horizontalAccuracy {
            if newestMeeting[level.rawValue].map({ fix.observedAt >= $0.observedAt }) ?? true {
                newestMeeting[level.rawValue] = fix
            }
        }
    }

    /// The best fix known at `now`: the finest achieved level, then the newest; `nil` if none.
    /// - Complexity: O(1)
    func best(at now: EngineInstant) -> StampedFix? {
        for level in AccuracyLevel.allCases.reversed() {
            if let fix = newestMeeting[level.rawValue], fix.age(at: now) <= level.maximumAge {
                return fix
            }
        }
        return latest
    }

    /// The newest fix satisfying `accuracy` at `now`, if any (used to complete requests from the cache). For a
    /// standard level, exactly: its slot holds the newest fix accurate enough. For a custom accuracy, see
    /// ``cached(satisfyingCustom:at:)``.
    /// - Complexity: O(1)
    func cached(satisfying accuracy: LocationAccuracy, at now: EngineInstant) -> StampedFix? {
        guard let level = accuracy.level else { return cached(satisfyingCustom: accuracy, at: now) }
        guard let candidate = newestMeeting[level.rawValue],
            accuracy.isSatisfied(horizontalAccuracy: candidate.location.horizontalAccuracy, age: candidate.age(at: now))
        else { return nil }
        return candidate
    }

    /// For a custom accuracy, the newest of the remembered fixes that satisfies it: the latest, and each level's
    /// newest (so that a less accurate fix after a good one does not hide it — a 30 m fix, then a 200 m one,
    /// answers a 50 m request from the block level's slot). A fix that is neither the latest nor any level's
    /// newest is not remembered on its own. Out of line: a standard level's way, every request's, stays small.
    /// - Complexity: O(1) (at most six fixes)
    @inline(never)
    private func cached(satisfyingCustom accuracy: LocationAccuracy, at now: EngineInstant) -> StampedFix? {
        var newest: StampedFix?
        func consider(_ candidate: StampedFix?) {
            guard let candidate, accuracy.isSatisfied(horizontalAccuracy: candidate.location.horizontalAccuracy, age: candidate.age(at: now))
            else { return }
            if newest.map({ candidate.observedAt > $0.observedAt }) ?? true { newest = candidate }
        }
        consider(latest)
        for candidate in newestMeeting { consider(candidate) }
        return newest
    }

    /// Replaces every remembered fix by its coarsened form (accuracy just became reduced: nothing
    /// precise may be delivered from the cache later).
    /// - Complexity: O(1) (at most six fixes).
    mutating func coarsen(with policy: ReducedAccuracyPolicy) {
        var fixes = newestMeeting.compactMap { $0 }
        if let latest { fixes.append(latest) }
        removeAll()
        for fix in fixes.sorted(by: { $0.observedAt < $1.observedAt }) {
            record(StampedFix(location: policy.coarsen(fix.location), observedAt: fix.observedAt))
        }
    }

    /// Forgets everything (authorization lost: nothing cached may be delivered later).
    mutating func removeAll() {
        latest = nil
        for index in newestMeeting.indices { newestMeeting[index] = nil }
    }
}
