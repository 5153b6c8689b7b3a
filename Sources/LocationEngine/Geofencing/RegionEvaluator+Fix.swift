extension RegionEvaluator {
    /// Decides the regions a fix can decide (see ``RegionEvaluator``), the fix reaching the evaluator at
    /// `now`. An invalid fix (``Location/isValid``) is ignored.
    ///
    /// Its decisions are stamped with `observedAt`, when the fix was taken (an aged fix: its arrival less
    /// the age its source reported; `nil`: `now`), and dwell and unknown count from there. A fix taken
    /// before the previous one decides nothing: its position is older than one the regions were already
    /// decided from (taken as the device's latest, it would move the device back and forth: an exit and an
    /// entry that never happened); returns whether the fix was taken. An instant after `now` is taken as
    /// `now`, and one before the previous fix's or before a deadline that has reported (a dwell, an unknown
    /// timeout) as that instant: no transition is stamped before one already reported. Deadlines due by the fix's instant are taken before it (a region the
    /// fix sees again does not go unknown at a deadline that fell after the fix was taken), and those due
    /// by its arrival after it.
    /// - Complexity: O(levels · cells + k log k) for the k regions near the fix, inside, unknown or undecided
    ///   (taken in the order their monitors were made: a device inside thousands of regions at once pays the
    ///   sort on every fix).
    @discardableResult
    public mutating func receiveFix(_ fix: Location, observedAt: EngineInstant? = nil, now arrival: EngineInstant) -> Bool {
        guard fix.isValid else { return false }
        let taken = min(observedAt ?? arrival, arrival)
        if let lastFixTaken, taken < lastFixTaken { return false }
        lastFixTaken = taken
        let now = max(taken, lastFix?.at ?? .zero, deadlinesReportedUntil)
        advanceTime(now: now)
        let position = GeoPoint(fix)
        let reach = configuration.decisionDistance(accuracy: fix.horizontalAccuracy)
        let recent = RecentFix(
            position: position, confidence: configuration.confidenceScale * fix.horizontalAccuracy, decisionDistance: reach, at: now, taken: taken)
        var query = GeoBounds(around: position, metres: reach)
        // The segment from the last fix, searched for regions it passes through.
        var segment: CrossingSegment?
        if let last = lastFix, last.position != position,
            last.position.distance(to: position) <= configuration.maximumCrossingSegment
        {
            let bounds = GeoBounds(enclosing: last.position, position)
            segment = CrossingSegment(from: last, bounds: bounds)
            query = query.union(bounds)
        }
        // Taken out of `self` while the grid reports into it (one access to `self` at a time), and left
        // empty there so that the buffer stays uniquely referenced (no copy, no allocation).
        var candidates = scratch
        scratch = []
        candidates.removeAll(keepingCapacity: true)
        grid.forEach(intersecting: query) { candidates.append($0) }
        if !insideSlots.isEmpty || !unknownSlots.isEmpty || !undecidedSlots.isEmpty {
            mark &+= 1
            if mark == 0 {
                for index in marks.indices { marks[index] = 0 }
                mark = 1
            }
            for slot in candidates { marks[Int(slot)] = mark }
            func takeUnmarked(_ set: Set<Int32>) {
                for slot in set where marks[Int(slot)] != mark {
                    marks[Int(slot)] = mark
                    candidates.append(slot)
                }
            }
            takeUnmarked(insideSlots)
            takeUnmarked(unknownSlots)
            takeUnmarked(undecidedSlots)
        }
        // In the order the monitors were made (slots are reused, and the sets walk in the order of their
        // hashes): the transitions one fix decides, and the dwells it starts, come out the same in every run.
        if candidates.count > 1 { candidates.sort { records[Int($0)]!.id < records[Int($1)]!.id } }
        for slot in candidates { evaluate(slot, fix: recent, segment: segment) }
        // The restored regions this fix did not take up are far outside it: confirmed, if outside.
        if !restoredSlots.isEmpty { restoredSlots.formIntersection(candidates) }
        scratch = candidates
        remember(recent)
        Self.shrink(&insideSlots)
        Self.shrink(&unknownSlots)
        Self.shrink(&undecidedSlots)
        statesHeldUntil = nil
        unknownAfterAtLastFix = unknownAfter
        globalTimeoutPending = unknownAfter != nil && unknownSlots.count < slots.count
        // A dwell of zero delay, or one counted from an aged fix, may be due at once.
        advanceTime(now: arrival)
        return true
    }

    /// Decides one region from `fix`.
    private mutating func evaluate(_ slot: Int32, fix: RecentFix, segment: CrossingSegment?) {
        let (position, reach, now) = (fix.position, fix.decisionDistance, fix.at)
        let record = records[Int(slot)]!
        let distance = record.region.signedDistance(to: position)
        if distance <= -reach {
            decide(slot, .inside, position: position, now: now)
        } else if distance >= reach {
            // Not for a region restored since the segment's first fix (it is in `restoredSlots` until a fix
            // takes it up): the path began before its monitor, and a restored state the fix confirms reports nothing.
            if record.state == .outside, let segment, !restoredSlots.contains(slot), record.region.bounds.intersects(segment.bounds),
                record.region.signedDistance(to: segment.from.position) >= segment.from.decisionDistance,
                record.region.isCrossed(from: segment.from.position, to: position),
                mustHavePassed(slot, from: segment.from, to: fix)
            {
                let passage = estimatedPassage(slot, from: segment.from, to: position, now: now)
                let restored = takeRestored(slot)
                emit(slot, .entered, at: now, crossedAt: passage.entered, againstRestoredState: restored)
                emit(slot, .exited, at: now, crossedAt: passage.exited, againstRestoredState: restored)
            }
            decide(slot, .outside, position: position, now: now)
        } else if record.state != .unknown && !undecidedSlots.contains(slot), let last = lastFix {
            // Known, and confidently so at the last fix (near it, or too far from it to be in doubt): in doubt now,
            // whether or not it ever becomes unknown; its unknown timeout, if any, runs from that fix, or from the
            // end of the hold that fix planned (no transition was owed before it, ``holdStates(until:)``).
            undecidedSlots.insert(slot)
            // By the timeout in force at that fix: one shortened since (full accuracy again) would put the
            // deadline behind this fix, a region going unknown at an instant the fix has already passed.
            if let unknownAfter = unknownAfterAtLastFix {
                let certainUntil = max(last.at, statesHeldUntil ?? last.at)
                scheduleUnknown(slot, at: certainUntil + unknownAfter)
            }
        }
    }

    /// The fix at `position` decided region `slot` as `decision` (inside or outside) at `now`.
    private mutating func decide(_ slot: Int32, _ decision: GeofenceState, position: GeoPoint, now: EngineInstant) {
        let index = Int(slot)
        if undecidedSlots.remove(slot) != nil { records[index]!.unknownToken = 0 }
        let restored = takeRestored(slot)
        let old = records[index]!.state
        guard old != decision else { return }
        switch old {
        case .unknown:
            unknownSlots.remove(slot)
            emit(slot, .determined(decision), at: now)
        case .outside, .inside:
            let entering = decision == .inside
            // No fix saw a restored region on its old side: there is nothing to estimate the crossing from.
            let crossedAt = restored ? nil : estimatedCrossing(slot, entering: entering, position: position, now: now)
            emit(slot, entering ? .entered : .exited, at: now, crossedAt: crossedAt, againstRestoredState: restored)
        }
        records[index]!.state = decision
        if decision == .inside {
            insideSlots.insert(slot)
            // Found inside again after an unknown stretch of a stay that dwelled: the same stay.
            if let delay = records[index]!.loiteringDelay, !(old == .unknown && records[index]!.dwelled) {
                records[index]!.dwellToken = schedule(slot, at: now + delay, isDwell: true)
            }
        } else {
            insideSlots.remove(slot)
            records[index]!.dwellToken = 0
            records[index]!.dwelled = false
        }
    }

    /// Gives back the storage of a set that once held far more than it does: iterating a set visits every
    /// bucket of its capacity, so a set that held every region while they were unknown (the first fix
    /// after many are added) would otherwise cost each later fix a scan of that many buckets.
    /// - Complexity: O(1), or O(n) for its n members when it shrinks (its capacity then falls fourfold or more).
    static func shrink(_ set: inout Set<Int32>) {
        guard set.capacity > 4 * max(set.count, 32) else { return }
        var smaller = Set<Int32>(minimumCapacity: set.count)
        for member in set { smaller.insert(member) }
        set = smaller
    }
}
