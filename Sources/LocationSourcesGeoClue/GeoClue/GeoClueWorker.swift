import Foundation
import NIOConcurrencyHelpers

/// The one thread a ``GeoClueLocationSource`` serves its runs on, until the source's `run()` (the engine's own
/// lifetime when an engine runs it) ends. The thread starts with the first start or the run, whichever comes
/// first — not only when the run's task gets a thread of the cooperative pool, which a busy program can keep
/// waiting for minutes — and serves the run the engine started last, one run at a time (a run stopped by a
/// new start has stopped GeoClue's client before the next begins). It sleeps between runs and between
/// messages until the bus or the engine has news (``WakeSignal``).
final class GeoClueWorker: Sendable {
    private struct State {
        /// The run the engine started last; kept after its stop, which its own state says.
        var latest: GeoClueSession?
        /// Whether a `run()` is active.
        var isRunning = false
        /// Whether the last `run()` was cancelled: the thread ends once the run it serves has stopped, and
        /// starts wait for the next `run()`.
        var isEnding = false
        /// Whether the thread runs.
        var hasThread = false
        /// The `run()` waiting for the thread to end.
        var whenEnded: CheckedContinuation<Void, Never>?
    }

    /// Signalled whenever the engine asks something of the thread (a start, a mode, a stop, the end), or a
    /// connection attempt finishes.
    let wake: WakeSignal
    /// Opens the runs' bus connections, at most one attempt at a time for all of them: one a stopped run gave up
    /// on is waited for, not repeated, by the next.
    let connector: DBusConnector
    private let state = NIOLockedValueBox(State())
    private let statistics: NIOLockedValueBox<GeoClueLocationSource.Statistics>

    init(statistics: NIOLockedValueBox<GeoClueLocationSource.Statistics>) {
        let wake = WakeSignal()
        self.wake = wake
        connector = DBusConnector(signalling: wake)
        self.statistics = statistics
    }

    /// Makes `session` the run to serve, stopping the one before it; starts the thread if it is not running
    /// (and no ended `run()` is waiting for the next).
    func start(_ session: GeoClueSession) {
        let previous = state.withLockedValue { state in
            defer { state.latest = session }
            return state.latest
        }
        previous?.stop()
        startThreadIfNeeded()
        wake.signal()
    }

    /// The run the engine started last, if it has not stopped it.
    var current: GeoClueSession? { state.withLockedValue { $0.latest }.flatMap { $0.isStopped ? nil : $0 } }

    /// Serves runs on the thread until the calling task is cancelled, then stops the run it serves (GeoClue's
    /// client stopped, the connection closed) and returns once the thread has ended. A second `run()` while one
    /// is active returns at once.
    func run() async {
        let claimed = state.withLockedValue { state in
            guard !state.isRunning else { return false }
            state.isRunning = true
            state.isEnding = false
            return true
        }
        guard claimed else { return }
        startThreadIfNeeded()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (ended: CheckedContinuation<Void, Never>) in
                let waits = state.withLockedValue { state in
                    guard state.hasThread else { return false }
                    state.whenEnded = ended
                    return true
                }
                if !waits { ended.resume() }
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

    private func startThreadIfNeeded() {
        let starts = state.withLockedValue { state in
            guard !state.hasThread, !state.isEnding else { return false }
            state.hasThread = true
            return true
        }
        guard starts else { return }
        let thread = Thread { [self] in
            serve()
            state.withLockedValue { state in
                state.hasThread = false
                defer { state.whenEnded = nil }
                return state.whenEnded
            }?.resume()
        }
        thread.name = "GeoClueLocationSource"
        thread.start()
    }

    /// The thread's loop: serves each new run once, sleeps on the wake-up otherwise, ends when the run ends.
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
