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
/// that never answers), never an expectation about timing.
public func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let result = first else {
            throw HarnessError(description: "gave up after \(seconds) s")
        }
        return result
    }
}

/// Runs `body`, a call that blocks its thread, on a thread of its own, failing if it has not returned after
/// `seconds`: a guard against a hang, never an expectation about timing. A call still blocked is left to its
/// thread (nothing can interrupt it), and the test goes on.
public func withDeadline<T: Sendable>(seconds: Double, blocking body: @escaping @Sendable () throws -> T) async throws -> T {
    let waiting = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(nil)
    let finish: @Sendable (Result<T, any Error>) -> Void = { result in
        waiting.withLockedValue { continuation in
            defer { continuation = nil }
            return continuation
        }?.resume(with: result)
    }
    return try await withCheckedThrowingContinuation { continuation in
        waiting.withLockedValue { $0 = continuation }
        Thread.detachNewThread { finish(Result { try body() }) }
        Task {
            try? await Task.sleep(for: .seconds(seconds))
            finish(.failure(HarnessError(description: "gave up after \(seconds) s")))
        }
    }
}
