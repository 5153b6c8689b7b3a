import Foundation
import LocationEngine
import NIOConcurrencyHelpers
@testable import LocationSources
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The NMEA stream source reading the process's standard input, here a pipe put in its place.
@Suite("Reading standard input", .serialized)
struct StandardInputTests {
    /// Runs `body` with a pipe in place of standard input and five epochs with fixes written into it, its write
    /// end closed before `body` when `ended` (standard input then ends), else after; puts standard input back.
    private func withFixesOnStandardInput(ended: Bool, _ body: () async throws -> Void) async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let saved = dup(STDIN_FILENO)
        #expect(dup2(ends[0], STDIN_FILENO) == STDIN_FILENO)
        close(ends[0])
        defer {
            dup2(saved, STDIN_FILENO)
            close(saved)
            if !ended { close(ends[1]) }
        }
        let stream = SyntheticStream(count: 80)
        let withFixes = stream.blocks.indices.filter { stream.epochs[$0].location != nil }.prefix(5).map { stream.blocks[$0] }.joined()
        let written = withFixes.utf8.withContiguousStorageIfAvailable { write(ends[1], $0.baseAddress, $0.count) }
        #expect(written == withFixes.utf8.count)
        if ended { close(ends[1]) }
        try await body()
    }

    @Test("a blocking standard input is blocking again once the source has stopped reading it")
    func standardInputIsLeftBlocking() async throws {
        let isBlocking: @Sendable () -> Bool = { fcntl(STDIN_FILENO, F_GETFL) & O_NONBLOCK == 0 }
        try await withFixesOnStandardInput(ended: false) {
            #expect(isBlocking())
            let source = NMEAStreamSource(configuration: NMEAStreamConfiguration(endpoint: .standardInput), logger: quietLogger())
            let engine = makeEngine(source)
            // Looked at as the first fix arrives, while the subscription (and so the source) still runs.
            let blockingWhileRead = NIOLockedValueBox<Bool?>(nil)
            _ = try await withDeadline(seconds: 60) {
                try await collect(engine.updates()) { events in
                    guard events.compactMap(\.location).count >= 1 else { return false }
                    blockingWhileRead.withLockedValue { $0 = isBlocking() }
                    return true
                }
            }
            #expect(blockingWhileRead.withLockedValue { $0 } == false, "read through the pipe channel, non-blocking while the source reads it")
            // The subscription ended, the only request: the engine stops the source and closes the link.
            try await withDeadline(seconds: 60) {
                while !isBlocking() { try await Task.sleep(for: .milliseconds(20)) }
            }
            await engine.shutdown()
        }
    }

    @Test("standard input that ends reports its end, as documented, even when asked to loop: only a file replays")
    func theEndOfStandardInputIsFinalWhateverLoopsFileSays() async throws {
        try await withFixesOnStandardInput(ended: true) {
            // Before, the source reopened its standard input, read its end again at once and, hearing nothing,
            // reported a disconnection, then gave up with a fatal error after the policy's second.
            let configuration = NMEAStreamConfiguration(
                endpoint: .standardInput, reconnect: ReconnectPolicy(initialDelay: .milliseconds(10), giveUpAfter: .seconds(1)),
                loopsFile: true)
            let source = NMEAStreamSource(configuration: configuration, logger: quietLogger())
            let engine = makeEngine(source)
            let events = try await withDeadline(seconds: 60) {
                try await collect(engine.updates(bufferingNewest: 10_000)) { $0.last?.sourceErrorCode != nil }
            }
            #expect(events.compactMap(\.location).count >= 1)
            #expect(events.last?.sourceErrorCode == "nmea.endOfStream")
            await engine.shutdown()
        }
    }
}
