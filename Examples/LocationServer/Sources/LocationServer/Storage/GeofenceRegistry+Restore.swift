import Foundation
import LocationEngine
import Logging

extension GeofenceRegistry {
    /// A stored fence that cannot be monitored again: the server refuses to start rather than drop it.
    struct RestoreError: Error, CustomStringConvertible {
        var fence: UInt64
        var problem: String
        var description: String { "stored fence \(fence) cannot be restored: \(problem)" }
    }

    /// Monitors every stored fence again on `engine`, each with the state it was left in and since when
    /// (``GeofenceOptions/restoredState``): its first deciding fix reports nothing when the state is the
    /// same, and `entered` or `exited` marked `whileStopped` when it changed.
    /// - Throws: ``RestoreError`` for a fence whose body no longer reads.
    func restore<C: Clock>(_ stored: [StoredFence], into engine: LocationEngine<C>) throws(RestoreError) where C.Duration == Duration {
        let wallNow = journal.now()
        let instantNow = engine.currentInstant()
        let origin = wallNow - instantNow.sinceEpoch.secondsValue
        let remonitor = Remonitor(
            monitor: { region, options, handler in engine.monitor(region, options: options, handler: handler) },
            cancel: { engine.cancel($0) }, sleep: { try await engine.clock.sleep(for: $0) }, now: { engine.currentInstant() },
            accessChanges: { engine.authorizationUpdates() })
        state.withLockedValue { state in
            state.timelineOrigin = origin
            state.remonitor = remonitor
        }
        var fences: [Fence] = []
        for row in stored {
            let body: GeofenceBody
            do {
                body = try GeofenceBody(json: Data(row.body.utf8), stored: true)
            } catch {
                throw RestoreError(fence: row.id, problem: error.message)
            }
            guard let known = GeofenceState(name: row.state) else { throw RestoreError(fence: row.id, problem: "unknown state '\(row.state)'") }
            fences.append(
                Fence(
                    id: row.id, body: body, owner: row.owner, state: known, since: row.since, dwelled: row.dwelled, restored: known != .unknown,
                    isStored: true))
        }
        state.withLockedValue { state in
            for fence in fences {
                state.fences[fence.id] = fence
                state.lastID = max(state.lastID, fence.id)
            }
        }
        var restored = 0
        for fence in fences {
            let id = fence.id
            let options = monitoringOptions(fence, instantNow: instantNow, wallNow: wallNow)
            let request = engine.monitor(fence.body.region, options: options) { [self] _, event in deliver(event, toFence: id) }
            if claimRestored(id, request: request) { restored += 1 }
        }
        counters.restored(restored)
    }

    /// Records the engine's request for a restored fence (an end it already had removes it, unless the end
    /// kept it to monitor it again).
    private func claimRestored(_ id: UInt64, request: RequestID) -> Bool {
        state.withLockedValue { state in
            guard state.fences[id]?.earlyEnd == nil else {
                state.fences[id] = nil
                return false
            }
            state.fences[id]?.request = request
            return true
        }
    }
}

extension GeofenceState {
    /// The state named `name` (its ``description``).
    init?(name: String) {
        switch name {
        case "unknown": self = .unknown
        case "inside": self = .inside
        case "outside": self = .outside
        default: return nil
        }
    }
}

extension GeofenceRegistry {
    /// The registry of the database at `path` (``ServerDatabase``, its commits reaching the disk as `sync`
    /// says), with every fence it keeps monitored again on `engine`.
    /// - Throws: ``DatabaseStartError`` or ``RestoreError``: the server must not start.
    static func open<C: Clock>(
        database path: String, sync: DatabaseSync = .normal, retention: EventStore.Retention, maximumFences: Int,
        maximumFencesPerClient: Int? = nil, counters: GeofenceCounters, logger: Logger,
        recentCapacity: Int = 16_384, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        restoringInto engine: LocationEngine<C>
    ) throws -> GeofenceRegistry where C.Duration == Duration {
        let claim = try ServerDatabase.claim(path: path)
        let database = try ServerDatabase.open(path: path, sync: sync)
        let contents: EventStore.Contents
        do {
            contents = try database.read { try EventStore.contents($0) }
        } catch {
            throw DatabaseStartError(path: path, problem: .notADatabase, underlying: error)
        }
        let journal = GeofenceJournal(
            database: database, contents: contents, retention: retention, counters: counters, logger: logger, recentCapacity: recentCapacity,
            now: now, fileLock: claim)
        let registry = GeofenceRegistry(
            maximumFences: maximumFences, maximumFencesPerClient: maximumFencesPerClient, journal: journal, lastFenceID: contents.lastFenceID,
            grants: contents.grants)
        try registry.restore(contents.fences, into: engine)
        return registry
    }
}
