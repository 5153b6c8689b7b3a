extension RegionEvaluator {
    /// Takes every deadline due by `now`, in order: dwells, and unknown timeouts (of a region left
    /// undecided, or of every known region when no fix came at all).
    /// - Complexity: O(log d) per deadline taken; O(n log n) for the n known regions when no fix came for
    ///   ``GeofenceConfiguration/unknownAfter``.
    public mutating func advanceTime(now: EngineInstant) {
        while true {
            dropStaleDeadlines()
            let global = globalUnknownDeadline
            // What falls at the global timeout's instant goes with it (below).
            if let top = deadlines.min, top.at <= now, global.map({ top.at < $0 }) ?? true {
                deadlines.removeMin()
                deadlinesReportedUntil = max(deadlinesReportedUntil, top.at)
                if top.isDwell {
                    records[Int(top.slot)]!.dwellToken = 0
                    records[Int(top.slot)]!.dwelled = true
                    emit(top.slot, .dwelled, at: top.at)
                } else {
                    becomeUnknown(top.slot, at: top.at)
                }
            } else if let global, global <= now {
                // The dwells due at this instant first (each region was inside until then), in the order they were
                // started; a region's own unknown timeout at this instant joins the batch, in the monitors' order.
                while let top = deadlines.min, top.at == global {
                    deadlines.removeMin()
                    guard isLive(top), top.isDwell else { continue }
                    records[Int(top.slot)]!.dwellToken = 0
                    records[Int(top.slot)]!.dwelled = true
                    emit(top.slot, .dwelled, at: top.at)
                }
                globalTimeoutPending = false
                deadlinesReportedUntil = max(deadlinesReportedUntil, global)
                // In the order the monitors were made, as a fix's transitions (slots are reused), with those whose
                // own timeout falls at this instant. Not a region with a later timeout of its own: one restored
                // since the last fix holds its state for the unknown timeout from when it was added.
                let known = records.indices.filter {
                    records[$0].map { $0.state != .unknown && ($0.unknownToken == 0 || $0.unknownAt == global) } ?? false
                }
                for slot in known.sorted(by: { records[$0]!.id < records[$1]!.id }) {
                    becomeUnknown(Int32(slot), at: global)
                }
            } else {
                return
            }
        }
    }

    /// No transition of the states the last fix left is owed before `instant`: no region can be decided
    /// against its state before it (``RegionReach/timeToDecidable``) plus the regions' latency budget
    /// (``GeofenceOptions/responsiveness``).
    ///
    /// So the unknown timeout of the known regions runs from `instant` rather than from the last fix (a receiver
    /// let sleep on purpose does not make them unknown), and so does that of a region the next fix leaves
    /// undecided. A region a fix already left undecided, restored ones included, has its pending timeout moved
    /// to `instant` plus the unknown timeout when that is later: set before this hold, it would fall in the
    /// middle of it, and the region, unknown when the receiver wakes, would keep it tracking. Holds until the
    /// next fix. For the package's own tools (`@_spi(Internals) import LocationEngine`: a benchmark's polling
    /// design waits between its fixes as the engine's sleeps do), not part of the engine's API.
    /// - Complexity: O(u log d) for the u regions left undecided and d deadlines.
    @_spi(Internals) public mutating func holdStates(until instant: EngineInstant) {
        statesHeldUntil = instant
        guard let unknownAfter, !undecidedSlots.isEmpty else { return }
        let until = instant + unknownAfter
        // A restored region the fix left undecided too: the plan holds for it as for the others.
        for slot in undecidedSlots where records[Int(slot)]!.unknownAt < until {
            scheduleUnknown(slot, at: until)
        }
    }

    /// Region `slot` had no confident fix for the unknown timeout.
    mutating func becomeUnknown(_ slot: Int32, at: EngineInstant) {
        let index = Int(slot)
        records[index]!.state = .unknown
        records[index]!.dwellToken = 0
        records[index]!.unknownToken = 0
        insideSlots.remove(slot)
        undecidedSlots.remove(slot)
        restoredSlots.remove(slot)
        unknownSlots.insert(slot)
        emit(slot, .becameUnknown, at: at)
    }

    /// The distance in metres from `position` to the nearest boundary of any monitored region (inside
    /// or out), or `nil` when none is within `limit` metres. Never more than the great-circle distance: a
    /// polygon's, measured in its local plane, is shortened by that plane's east–west stretch where the
    /// position lies poleward of it.
    ///
    /// Searches boxes growing fourfold, so it costs O(log(d / r)) grid queries for a boundary d metres
    /// away. The first box is seeded from the last search: the nearest boundary can be no farther than
    /// it was then plus the distance moved since (and no nearer than it was less that distance), so a
    /// search from near the last one's position, with the same regions, takes one query of about the
    /// distance found; otherwise the first box reaches 250 m.
    public mutating func distanceToNearestBoundary(from position: GeoPoint, within limit: Double) -> Double? {
        guard position.isValid, limit >= 0, !slots.isEmpty else { return nil }
        var radius = min(250, limit)
        if let last = lastNearest, last.regionsVersion == regionsVersion {
            let moved = last.position.distance(to: position)
            if let distance = last.distance {
                radius = min(limit, max(1, distance + moved))
            } else {
                radius = min(limit, max(radius, last.limit - moved))
            }
        }
        while true {
            var best = Double.infinity
            var candidates = scratch
            scratch = []
            candidates.removeAll(keepingCapacity: true)
            // A little wider than the radius: polygon distances are measured in their local plane,
            // within a few per cent of the great-circle ones the box is drawn with (and never above them).
            grid.forEach(intersecting: GeoBounds(around: position, metres: radius * 1.05 + 1)) { candidates.append($0) }
            for slot in candidates {
                best = min(best, records[Int(slot)]!.region.boundaryDistanceAtMost(from: position))
            }
            scratch = candidates
            if best <= radius {
                lastNearest = NearestBoundary(position: position, distance: best, limit: limit, regionsVersion: regionsVersion)
                return best
            }
            if radius >= limit {
                lastNearest = NearestBoundary(position: position, distance: nil, limit: limit, regionsVersion: regionsVersion)
                return nil
            }
            radius = min(limit, radius * 4)
        }
    }
}
