import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers

/// The chaos walk's requests made through the async API: one-shot handles (``LocationRequest``), each awaited by a
/// task of its own, and subscriptions' sequences (``LocationUpdates``), each read by a task of its own that may
/// leave its loop early. The walk cancels them by ID, force-completes the sequences, and cancels the tasks that
/// await them. The readers run beside the walk on the cooperative pool, so what they saw is judged once everything
/// has ended (``finish()``), not as it comes:
///
/// - every handle's awaiting ends, with the request's own result, or with `CancellationError` only if the request
///   or the task awaiting it was cancelled; awaiting it again gives the same;
/// - every sequence's loop ends: normally (a normal end, a cancel or the reader leaving), or by throwing
///   ``SubscriptionEndedError`` for an abnormal end (a cancelled reading task ends its loop too, without an error).
final class ChaosAwaitedRequests: Sendable {
    enum HandleOutcome: Sendable {
        case result(LocationResult)
        case cancelled
        case failed(String)
    }

    enum StreamOutcome: Sendable {
        /// The loop ended: the sequence finished (a normal end, or a cancel).
        case finished
        /// The reader left the loop (which cancels the subscription).
        case left
        /// The sequence threw its abnormal end.
        case ended(SubscriptionEnd)
        case failed(String)
    }

    struct Handle: Sendable {
        let request: LocationRequest
        let reader: Task<HandleOutcome, Never>
        var cancelled = false
    }

    struct Stream: Sendable {
        let id: RequestID
        let reader: Task<StreamOutcome, Never>
    }

    /// What ``finish()`` found, for the engine's counters.
    struct Counts: Sendable {
        /// Handles that ended with a result, and those that ended cancelled.
        var results = 0, cancelled = 0
        /// Sequences by how they ended, for the walk's tally.
        var finished = 0, left = 0, endedAbnormally = 0
    }

    private let state = NIOLockedValueBox((handles: [Handle](), streams: [Stream]()))

    /// Awaits `request` in a task of its own.
    func await(_ request: LocationRequest) {
        let reader = Task { () -> HandleOutcome in
            do {
                return .result(try await request.result())
            } catch is CancellationError {
                return .cancelled
            } catch {
                return .failed("\(error)")
            }
        }
        state.withLockedValue { $0.handles.append(Handle(request: request, reader: reader)) }
    }

    /// Reads `updates` in a task of its own, leaving the loop after `leavingAfter` events if given.
    func read(_ updates: LocationUpdates, leavingAfter: Int?) {
        let reader = Task { () -> StreamOutcome in
            var events = 0
            do {
                for try await _ in updates {
                    events += 1
                    if let leavingAfter, events >= leavingAfter { return .left }
                }
                return .finished
            } catch let error as SubscriptionEndedError {
                return .ended(error.reason)
            } catch {
                return .failed("\(error)")
            }
        }
        state.withLockedValue { $0.streams.append(Stream(id: updates.id, reader: reader)) }
    }

    /// Ends one of the latest requests (most earlier ones have ended), chosen by `roll`: a handle is cancelled by ID
    /// or by cancelling the task that awaits it; a sequence is cancelled by ID, force-completed, or its reading task
    /// is cancelled.
    func withdrawOne(from engine: LocationEngine<ManualClock>, _ roll: (Int) -> Int) {
        let (handles, streams) = state.withLockedValue { ($0.handles.count, $0.streams.count) }
        let latest = (handles: min(handles, 4), streams: min(streams, 4))
        guard latest.handles + latest.streams > 0 else { return }
        let pick = roll(latest.handles + latest.streams)
        let how = roll(3)
        if pick < latest.handles {
            let index = handles - 1 - pick
            let handle = state.withLockedValue { state in
                state.handles[index].cancelled = true
                return state.handles[index]
            }
            if how == 0 { handle.reader.cancel() } else { engine.cancel(handle.request.id) }
        } else {
            let index = streams - 1 - (pick - latest.handles)
            let stream = state.withLockedValue { $0.streams[index] }
            switch how {
            case 0: engine.cancel(stream.id)
            case 1: engine.forceComplete(stream.id)
            default: stream.reader.cancel()
            }
        }
    }

    /// Once the engine has shut down (every request ended, so every reader ends: one that did not would hold the
    /// test to its time limit): awaits every reader and returns what they saw, with the broken promises.
    func finish() async -> (Counts, violations: [String]) {
        let (handles, streams) = state.withLockedValue { ($0.handles, $0.streams) }
        var counts = Counts()
        var violations: [String] = []
        for handle in handles {
            let id = handle.request.id
            let outcome = await handle.reader.value
            switch outcome {
            case .result(let result):
                counts.results += 1
                if result.requestID != id { violations.append("handle \(id) got the result of \(result.requestID)") }
                let again = try? await handle.request.result()
                if again?.status != result.status || again?.requestID != id {
                    violations.append("handle \(id): awaited again, it did not give its result \(result.status)")
                }
            case .cancelled:
                counts.cancelled += 1
                if !handle.cancelled { violations.append("handle \(id) threw CancellationError though neither it nor its task was cancelled") }
            case .failed(let error):
                violations.append("handle \(id) threw \(error)")
            }
        }
        for stream in streams {
            switch await stream.reader.value {
            case .finished: counts.finished += 1
            case .left: counts.left += 1
            case .ended(let end):
                counts.endedAbnormally += 1
                switch end {
                case .maximumUpdatesReached, .durationElapsed, .forceCompleted:
                    violations.append("sequence \(stream.id) threw a normal end, \(end)")
                default: break
                }
            case .failed(let error):
                violations.append("sequence \(stream.id) threw \(error)")
            }
        }
        return (counts, violations)
    }
}
