import Foundation
import NIOConcurrencyHelpers

/// The one thread a ``GeoClueLocationSource`` serves its runs on, for as long as the source's `run()` lasts
/// (the engine's own lifetime when an engine runs it). The thread serves the run the engine started last,
/// one run at a time — a run stopped by a new start has stopped GeoClue's client before the next begins —
/// and sleeps between runs and between messages until the bus or the engine has news (``WakeSignal``).
final class GeoClueWorker: Sendable {
    private struct State {
        /// The run the engine started last; kept after its stop, which its own state says.
        var latest: GeoClueSession?
        /// Whether a `run()` is active.
        var isRunning = false
        /// Whether that `run()` was cancelled: the thread ends once the run it serves has stopped.
        var isEnding = false
    }

    /// Signalled whenever the engine asks something of the thread: a start, a mode, a stop, the end.
    let wake = WakeSignal()
    private let state = NIOLockedValueBox(State())
    private let statistics: NIOLockedValueBox<GeoClueLocationSource.Statistics>

    init(statistics: NIOLockedValueBox<GeoClueLocationSource.Statistics>) { self.statistics = statistics }

    /// Makes `session` the run to serve, stopping the one before it.
    func start(_ session: GeoClueSession) {
        let previous = state.withLockedValue { state in
            defer { state.latest = session }
            return state.latest
        }
        previous?.stop()
        wake.signal()
    }

    /// The run the engine started last, if it has not stopped it.
    var current: GeoClueSession? { state.withLockedValue { $0.latest }.flatMap { $0.isStopped ? nil : $0 } }

    /// Serves runs on a thread of its own until the calling task is cancelled, then stops the run it serves
    /// (GeoClue's client stopped, the connection closed) and returns once the thread has ended. A second
    /// `run()` while one is active returns at once.
    func run() async {
        let claimed = state.withLockedValue { state in
            guard !state.isRunning else { return false }
            state.isRunning = true
            state.isEnding = false
            return true
        }
        guard claimed else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
                let thread = Thread { [self] in
                    serve()
                    ended.resume()
                }
                thread.name = "GeoClueLocationSource"
                thread.start()
            }
        } onCancel: {
            let latest = state.withLockedValue { state in
                state.isEnding = true
                return state.latest
            }
            latest?.stop()
            wake.signal()
        }
        state.withLockedValue { $0.isRunning = false }
    }

    /// The thread's loop: serves each new run once, sleeps on the wake-up otherwise.
    private func serve() {
        // Held, not identified by address: a run that ended and was freed cannot pass for a new one.
        var served: GeoClueSession?
        while true {
            // Looked at before each wait: a signal given after the look leaves the wake-up readable.
            let (latest, ending) = state.withLockedValue { ($0.latest, $0.isEnding) }
            if ending { return }
            if let latest, latest !== served, !latest.isStopped {
                served = latest
                latest.run()
                continue
            }
            wake.wait(timeout: nil)
            statistics.withLockedValue { $0.wakeups += 1 }
        }
    }
}
