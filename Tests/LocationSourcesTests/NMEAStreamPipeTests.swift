import Foundation
import LocationEngine
@testable import LocationSources
import NIOPosix
import Testing
import TestSupport

/// A serial path that is not a terminal — a named pipe, as `mkfifo` makes for a bridging script —
/// is read as it is, through the same pipe channel as a device.
struct NMEAStreamPipeTests {
    @Test func aNamedPipeIsReadWithoutTerminalSettings() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nmea-\(UUID().uuidString).fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        let source = NMEAStreamSource(configuration: NMEAStreamConfiguration(endpoint: .serial(path: path, baudRate: 4800), reconnect: .waitingForTheTest), logger: quietLogger())
        let engine = makeEngine(source)
        let updates = engine.updates(bufferingNewest: 1000)
        // Opening a FIFO for writing waits for a reader: the source opening it is that reader. The
        // blocking open runs on NIO's thread pool, off the cooperative threads.
        let writer = try await NIOThreadPool.singleton.runIfActive { FileHandle(forWritingAtPath: path) }
        let stream = SyntheticStream(count: 12)
        try await NIOThreadPool.singleton.runIfActive { try writer?.write(contentsOf: Array(stream.blocks.joined().utf8)) }
        let expected = stream.fixesByTime.keys.sorted().dropLast()
        let events = try await withDeadline(seconds: 30) {
            try await collect(updates) { $0.compactMap(\.location).count >= expected.count }
        }
        #expect(events.compactMap(\.location).compactMap(\.utcTime) == Array(expected))
        try writer?.close()
        await engine.shutdown()
    }
}
