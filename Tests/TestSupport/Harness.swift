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
