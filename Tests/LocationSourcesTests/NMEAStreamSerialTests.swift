import Foundation
import LocationEngine
@testable import LocationSources
import NIOPosix
import Testing
import TestSupport

/// The NMEA stream source on a serial port: a pseudo-terminal pair made by socat stands in for a
/// receiver on /dev/ttyUSB0. CI installs socat (apt-get install socat).
struct NMEAStreamSerialTests {
    /// Whether `/proc/self/fd` shows this process holding `device` open (the source opened the port).
    private func processHolds(_ device: String) -> Bool {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == device }
    }

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed (apt-get install socat); it makes the pseudo-terminal pair"))
    func aPseudoTerminalIsReadInRawModeAcrossSentencesCutInTwo() async throws {
        let terminals = try await PseudoTerminalPair.make()
        defer { terminals.unplug() }
        let receiverSide = terminals.host
        let writerSide = terminals.device
        let device = try FileManager.default.destinationOfSymbolicLink(atPath: receiverSide)

        let source = NMEAStreamSource(
            configuration: NMEAStreamConfiguration(endpoint: .serial(path: receiverSide, baudRate: 9600), reconnect: .waitingForTheTest), logger: quietLogger())
        let engine = makeEngine(source)
        let updates = engine.updates(bufferingNewest: 1000)
        try await withDeadline(seconds: 20) {
            while !processHolds(device) { try await Task.sleep(for: .milliseconds(20)) }
        }

        let stream = SyntheticStream(count: 30)
        let writer = try #require(FileHandle(forWritingAtPath: writerSide))
        let blocks = stream.blocks
        let writing = Task {
            for block in blocks {
                // Each epoch in two writes that split a sentence, as a slow UART delivers it. The
                // blocking writes run on NIO's thread pool, off the cooperative threads.
                let bytes = Array(block.utf8)
                let middle = bytes.count / 2 + 5
                try await NIOThreadPool.singleton.runIfActive { try writer.write(contentsOf: bytes[..<middle]) }
                try await Task.sleep(for: .milliseconds(15))
                try await NIOThreadPool.singleton.runIfActive { try writer.write(contentsOf: bytes[middle...]) }
            }
        }
        defer { writing.cancel() }
        let expected = stream.fixesByTime
        let lastWanted = expected.keys.sorted().dropLast().last!
        let events = try await withDeadline(seconds: 60) {
            try await collect(updates) { events in events.compactMap(\.location).last?.utcTime == lastWanted }
        }
        try await withDeadline(seconds: 30) { try await writing.value }
        try writer.close()
        await terminals.stop()

        let times = events.compactMap(\.location).compactMap(\.utcTime)
        #expect(times == times.sorted() && Set(times).count == times.count)
        // Everything from the first fix read on: no epoch lost or garbled by the split writes.
        let sortedExpected = expected.keys.sorted().filter { $0 >= times.first ?? 0 && $0 <= lastWanted }
        #expect(times == sortedExpected)
        #expect(times.count >= expected.count - 3)
        for fix in events.compactMap(\.location) {
            #expect(samePosition(fix, try #require(expected[fix.utcTime ?? -1])))
        }
        await engine.shutdown()
    }
}
