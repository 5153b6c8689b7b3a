import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A failure of a test harness itself (a tool that would not start, a guard that expired), as
/// opposed to a failure of the code under test.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String

    /// Creates an error.
    public init(description: String) { self.description = description }
}

/// A port on 127.0.0.1 that was free a moment ago (bound to port 0, then released).
public func freeLoopbackPort() async throws -> Int {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .bind(host: "127.0.0.1", port: 0)
        .get()
    let port = channel.localAddress?.port
    try await channel.close()
    guard let port else { throw HarnessError(description: "no port assigned") }
    return port
}

/// Runs `body`, failing if it has not finished after `seconds`: a guard against a hang (a peer
/// that never answers), never an expectation about timing. The failure does not wait for `body`:
/// it is cancelled and left to end when it can, so a body that ignores cancellation (an `await` of
/// a task that never returns) fails its test instead of holding the whole run.
public func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await firstOf(seconds: seconds) { finish in
        Task {
            do { finish(.success(try await body())) } catch { finish(.failure(error)) }
        }
    }
}

/// Waits, polling every 20 ms, until `condition` holds; a harness failure after `seconds` of polls (a
/// component that never came up), never an expectation about timing. Counted in polls, not on the clock: a
/// test starved of threads by the tests beside it still gets its looks. The condition may block (a call on
/// a bus): each look runs on a thread of its own for at most 5 s.
public func pollUntil(_ what: String, seconds: Int = 20, _ condition: @escaping @Sendable () -> Bool) async throws {
    for _ in 0..<(seconds * 50) {
        if (try? await withDeadline(seconds: 5, blocking: condition)) == true { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    throw HarnessError(description: "gave up waiting for \(what)")
}

/// Runs `body`, a call that blocks its thread, on a thread of its own, failing if it has not returned after
/// `seconds`: a guard against a hang, never an expectation about timing. A call still blocked is left to its
/// thread (nothing can interrupt it), and the test goes on.
public func withDeadline<T: Sendable>(seconds: Double, blocking body: @escaping @Sendable () throws -> T) async throws -> T {
    try await firstOf(seconds: seconds) { finish in
        Thread.detachNewThread { finish(Result { try body() }) }
        return nil
    }
}

/// The first of the work `start` begins (handed the means to finish) and a deadline `seconds` away. Whichever
/// comes first cancels the other's task (the work's, if it has one); the caller's cancellation ends the wait at once.
private func firstOf<T: Sendable>(
    seconds: Double, start: (@escaping @Sendable (Result<T, any Error>) -> Void) -> Task<Void, Never>?
) async throws -> T {
    let waiting = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(nil)
    let tasks = NIOLockedValueBox<[Task<Void, Never>]>([])
    let cancelAll: @Sendable () -> Void = { for task in tasks.withLockedValue({ $0 }) { task.cancel() } }
    let finish: @Sendable (Result<T, any Error>) -> Void = { result in
        waiting.withLockedValue { continuation in
            defer { continuation = nil }
            return continuation
        }?.resume(with: result)
        cancelAll()
    }
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            // Stored before the work starts, so that work finishing at once finds it.
            waiting.withLockedValue { $0 = continuation }
            let deadline = Task {
                guard (try? await sleepCountingWakeUps(seconds: seconds)) != nil else { return }
                finish(.failure(HarnessError(description: "gave up after \(seconds) s")))
            }
            let work = start(finish)
            tasks.withLockedValue { $0 += [deadline] + (work.map { [$0] } ?? []) }
            // Work that finished before its task was stored has found nothing to cancel.
            if waiting.withLockedValue({ $0 == nil }) { cancelAll() }
        }
    } onCancel: {
        finish(.failure(CancellationError()))
    }
}

/// Sleeps `seconds` as whole steps of one second each (the rest as one shorter step), counting the steps this
/// task woke for, not the time that passed: a machine that stalls for minutes (every process frozen, or the
/// cooperative pool busy with other suites) costs one step, so a guard never expires for time in which
/// nothing it guards could run. A hang still meets the guard after `seconds` of the guard's own wake-ups.
func sleepCountingWakeUps(seconds: Double) async throws {
    var left = seconds
    while left > 0 {
        let step = min(left, 1)
        try await Task.sleep(for: .seconds(step))
        left -= step
    }
}
