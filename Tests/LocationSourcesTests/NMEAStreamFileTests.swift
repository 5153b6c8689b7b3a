import Foundation
import LocationEngine
@testable import LocationSources
import MetricsTestKit
import Testing
import TestSupport

/// The NMEA stream source replaying files.
struct NMEAStreamFileTests {
    /// Writes `text` to a fresh temporary file and returns its path; the caller removes it.
    private func temporaryLog(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nmea-\(UUID().uuidString).log")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    private func replay(
        _ path: String, pacing: NMEAReplayPacing, metrics: TestMetrics = TestMetrics()
    ) async throws -> ([SubscriptionEvent], NMEAStreamStatistics) {
        let source = NMEAStreamSource(
            configuration: NMEAStreamConfiguration(endpoint: .file(path: path, pacing: pacing)), logger: quietLogger(), metricsFactory: metrics)
        let engine = makeEngine(source)
        let events = try await withDeadline(seconds: 60) {
            try await collect(engine.updates(bufferingNewest: 10_000)) { events in
                events.last?.sourceErrorCode == "nmea.endOfStream"
            }
        }
        await engine.shutdown()
        return (events, source.statistics)
    }

    @Test(arguments: [NMEAReplayPacing.asFastAsPossible, .recorded(speed: 40)])
    func aLogCutMidSentenceReplaysEveryCompleteEpochOnceThenEnds(pacing: NMEAReplayPacing) async throws {
        let stream = SyntheticStream(count: 40)
        let cut = 20
        // A recording interrupted in the middle of a sentence of epoch 20 and resumed at epoch 21.
        let text = "# recorded by a test\n" + stream.blocks[..<cut].joined()
            + stream.blocks[cut].prefix(stream.blocks[cut].count / 2) + "\r\n" + stream.blocks[(cut + 1)...].joined()
        let path = try temporaryLog(text)
        defer { try? FileManager.default.removeItem(atPath: path) }

        let metrics = TestMetrics()
        let (events, statistics) = try await replay(path, pacing: pacing, metrics: metrics)
        let fixes = events.compactMap(\.location)
        let times = fixes.compactMap(\.utcTime)
        let expected = stream.fixesByTime
        #expect(times == times.sorted() && Set(times).count == times.count, "in order, each once")
        let cutTime = stream.epochs[cut].unixTime
        #expect(Set(times).subtracting([cutTime]) == Set(expected.keys).subtracting([cutTime]), "every complete epoch")
        for fix in fixes {
            let truth = try #require(expected[fix.utcTime ?? -1])
            #expect(samePosition(fix, truth))
        }
        #expect(statistics.decoder.totalErrors >= 1, "the cut sentence was counted")
        #expect(statistics.fixesDelivered == fixes.count)
        let delivered = try metrics.expectCounter("locationsource_fixes", [("source", "nmea"), ("result", "delivered")])
        let rejected = try metrics.expectCounter("locationsource_input_skipped", [("source", "nmea"), ("reason", "rejected_sentence")])
        #expect(delivered.totalValue == Int64(fixes.count))
        #expect(rejected.totalValue == Int64(statistics.decoder.totalErrors))
    }

    @Test(.enabled(if: SharedLogs.available, "../shared/nmea is absent (a fresh clone); CI provides the receiver logs"))
    func aRealReceiverLogWithABadChecksumReplays() async throws {
        let path = Corpus.directory!.appendingPathComponent("com-1289.log").path
        let (events, statistics) = try await replay(path, pacing: .asFastAsPossible)
        #expect(events.compactMap(\.location).count > 5)
        #expect(statistics.decoder[error: .badChecksum] == 1, "the log's one corrupted GSV")
    }

    @Test("a named pipe given as a log file is opened without waiting for a writer, read as it comes, and ends with its writer")
    func aNamedPipeIsReadWithoutBlocking() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nmea-\(UUID().uuidString).fifo").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = NMEAStreamSource(
            configuration: NMEAStreamConfiguration(endpoint: .file(path: path, pacing: .asFastAsPossible), reconnect: .waitingForTheTest),
            logger: quietLogger())
        let engine = makeEngine(source)
        let updates = engine.updates(bufferingNewest: 10_000)
        let collected = Task { try await collect(updates) { $0.last?.sourceErrorCode == "nmea.endOfStream" } }
        // The subscription starts the source while nobody writes to the pipe: a blocking open held the engine
        // there until a writer came, so this never returned.
        try await withDeadline(seconds: 60) { await engine.sync() }
        // A writer comes once the source has the pipe open (opening the write end fails until a reader has it).
        let writer = try await withDeadline(seconds: 60) {
            while true {
                let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if descriptor >= 0 { return descriptor }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        let stream = SyntheticStream(count: 6)
        let text = stream.blocks.joined()
        #expect(text.utf8.count < 65_536, "fits the pipe's buffer")
        #expect(text.withCString { write(writer, $0, strlen($0)) } == text.utf8.count)
        close(writer)
        let events = try await withDeadline(seconds: 60) { try await collected.value }
        #expect(events.compactMap(\.location).count == stream.fixesByTime.count, "every fix, then the end of the stream")
        await engine.shutdown()
    }

    @Test("a looped log shorter than the duplicate memory plays on every pass, not once")
    func aShortLoopedLogPlaysAgain() async throws {
        let stream = SyntheticStream(count: 8)
        let pass = stream.epochs.filter { $0.location != nil }.map(\.unixTime)
        let path = try temporaryLog(stream.blocks.joined())
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = NMEAStreamSource(
            configuration: NMEAStreamConfiguration(endpoint: .file(path: path, pacing: .asFastAsPossible), loopsFile: true), logger: quietLogger())
        let engine = makeEngine(source)
        let events = try await withDeadline(seconds: 60) {
            try await collect(engine.updates(bufferingNewest: 10_000)) { events in events.compactMap(\.location).count >= 3 * pass.count }
        }
        let statistics = source.statistics
        await engine.shutdown()
        let times = events.compactMap(\.location).compactMap(\.utcTime)
        #expect(pass.count >= 3 && Array(times.prefix(3 * pass.count)) == Array(repeating: pass, count: 3).flatMap { $0 })
        // A pass's end is no disconnection: no transient error between passes, none counted.
        let disconnections = events.compactMap { if case .sourceError(let error) = $0, error.code == "nmea.disconnected" { error } else { nil } }
        #expect(disconnections.isEmpty, "\(disconnections)")
        #expect(statistics.disconnections == 0)
    }

    @Test("a paced replay stopped while it waits for its next epoch closes its file at once, not when the epochs read would have been due; those are counted stale")
    func aPacedReplayStoppedMidWaitClosesItsFile() async throws {
        let stream = SyntheticStream(count: 80)
        // The epochs with a fix (the receiver starts cold): the first is delivered at once.
        let withFixes = stream.blocks.indices.filter { stream.epochs[$0].location != nil }.map { stream.blocks[$0] }
        #expect(withFixes.count > 10)
        let path = try temporaryLog(withFixes.joined())
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A thousand times slower than recorded: the second epoch of the first chunk read is due 1,000 s later.
        let source = NMEAStreamSource(
            configuration: NMEAStreamConfiguration(endpoint: .file(path: path, pacing: .recorded(speed: 0.001))), logger: quietLogger())
        let engine = makeEngine(source)
        _ = try await withDeadline(seconds: 60) {
            try await collect(engine.updates()) { $0.compactMap(\.location).count >= 1 }
        }
        // The subscription ended, the only request: the engine stops the source.
        try await withDeadline(seconds: 60) {
            while Self.openDescriptors(of: path) > 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        // Counted as the cancellations reach the event loop, which may be after the descriptor closed.
        try await withDeadline(seconds: 60) {
            while source.statistics.staleFixes == 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        await engine.shutdown()
    }

    /// How many of the process's descriptors are open on `path`.
    private static func openDescriptors(of path: String) -> Int {
        let directory = "/proc/self/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\($0)")) == path }.count
    }

    /// The fatal error a city one-shot ends with when `endpoint` cannot be opened (retried for 100 ms).
    private func fatalError(opening endpoint: NMEAStreamEndpoint, log: TestLog = TestLog()) async throws -> SourceError? {
        let source = NMEAStreamSource(
            configuration: NMEAStreamConfiguration(
                endpoint: endpoint, reconnect: ReconnectPolicy(initialDelay: .milliseconds(10), giveUpAfter: .milliseconds(100))),
            logger: log.logger)
        let engine = makeEngine(source, log: log)
        let result = try await withDeadline(seconds: 30) { try await engine.location(accuracy: .city, timeout: .seconds(60)) }
        await engine.shutdown()
        guard case .failed(let error) = result.status else {
            Issue.record("expected a fatal error, got \(result)")
            return nil
        }
        return error
    }

    @Test func aMissingFileIsAClearFatalError() async throws {
        let log = TestLog()
        let error = try await fatalError(opening: .file(path: "/nonexistent/track.nmea", pacing: .asFastAsPossible), log: log)
        #expect(error?.code == "nmea.unreachable")
        #expect(error?.message.contains("/nonexistent/track.nmea does not exist") == true)
        #expect(log.contains(.error, "giving up on the NMEA stream"))
    }

    @Test("a device the poller cannot watch, given as a serial device, is refused with a clear error, not trapped in the event loop")
    func aSerialPathThePollerRefusesIsAClearFatalError() async throws {
        let error = try await fatalError(opening: .serial(path: "/dev/null", baudRate: 9600))
        #expect(error?.code == "nmea.unreachable")
        #expect(error?.message.contains("/dev/null is not a serial device") == true)
    }

    @Test("a device the poller cannot watch, given as a log file, is read as a file: /dev/null is an empty log that ends, not a trap in the event loop")
    func aDeviceThePollerRefusesIsReadAsAFile() async throws {
        let (events, statistics) = try await replay("/dev/null", pacing: .asFastAsPossible)
        #expect(events.compactMap(\.location).isEmpty && statistics.fixesDelivered == 0)
        #expect(events.last?.sourceErrorCode == "nmea.endOfStream")
    }

    @Test func aDirectoryIsAClearFatalError() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nmea-directory-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = NMEAStreamSource(
            configuration: NMEAStreamConfiguration(
                endpoint: .file(path: directory, pacing: .asFastAsPossible),
                reconnect: ReconnectPolicy(initialDelay: .milliseconds(10), giveUpAfter: .milliseconds(100))),
            logger: quietLogger())
        let engine = makeEngine(source)
        let result = try await withDeadline(seconds: 30) { try await engine.location(accuracy: .city, timeout: .seconds(60)) }
        guard case .failed(let error) = result.status else {
            Issue.record("expected a fatal error, got \(result)")
            return
        }
        #expect(error.code == "nmea.unreachable")
        #expect(error.message.contains("cannot open \(directory): Is a directory"), "\(error.message)")
        await engine.shutdown()
    }

    @Test("whether the poller can watch a descriptor: a pipe yes; /dev/null and a regular file no")
    func pollability() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(Pollability.canPoll(ends[0]))
        let null = open("/dev/null", O_RDONLY)
        defer { close(null) }
        #expect(null >= 0 && !Pollability.canPoll(null))
        let path = try temporaryLog("$GPGGA\r\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = open(path, O_RDONLY)
        defer { close(file) }
        #expect(file >= 0 && !Pollability.canPoll(file))
    }
}
