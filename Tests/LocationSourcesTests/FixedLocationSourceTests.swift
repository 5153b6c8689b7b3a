import Foundation
import LocationEngine
import LocationEngineTestKit
import LocationSources
import Testing
import TestSupport

/// The fixed source: positions checked, the `/etc/geolocation` format read as GeoClue reads it, and the
/// position reported at each start and again every interval while it runs, on a manual clock.
@Suite struct FixedLocationSourceTests {
    @Test func theGeolocationFormatIsFourValuesWithCommentsAndBlankLines() throws {
        let text = """
            # A server in a rack in Berlin
            52.5200   # latitude

            13.4050
            34.0      # altitude, metres
            25        # accuracy radius, metres
            anything after the fourth value is not read
            """
        let location = try FixedLocation(geolocation: text)
        #expect(location.latitude == 52.52 && location.longitude == 13.405 && location.altitude == 34 && location.accuracy == 25)
    }

    @Test("a file written on Windows (lines ending in CR LF) reads as the same file, its line numbers the same")
    func windowsLineEndingsAreLineEndings() throws {
        let location = try FixedLocation(geolocation: "# Berlin\r\n52.52\r\n\r\n13.405   # longitude\r\n34\r\n25\r\n")
        #expect(location.latitude == 52.52 && location.longitude == 13.405 && location.altitude == 34 && location.accuracy == 25)
        #expect {
            try FixedLocation(geolocation: "52.52\r\n13.405\r\nhigh\r\n25\r\n")
        } throws: { error in
            "\(error)".contains("line 3: 'high' is not a number")
        }
    }

    @Test(arguments: [
        ("52.5\n13.4\n34\n", "accuracy radius is missing"),
        ("52.5 N\n13.4\n34\n25\n", "line 1: '52.5 N' is not a number"),
        ("nan\n13.4\n34\n25\n", "line 1: 'nan' is not a number"),
        ("52.5\ninf\n34\n25\n", "line 2: 'inf' is not a number"),
        ("91\n13.4\n34\n25\n", "latitude must be a number from -90 to 90"),
        ("52.5\n-181\n34\n25\n", "longitude must be a number from -180 to 180"),
        ("52.5\n13.4\n34\n-1\n", "accuracy must be a finite radius of at least 0 m"),
        ("", "0 of 4 values"),
    ])
    func aFileThatSaysNoValidPositionIsRefusedWithTheReason(text: String, reason: String) {
        #expect {
            try FixedLocation(geolocation: text)
        } throws: { error in
            "\(error)".contains(reason)
        }
    }

    @Test func absurdCoordinatesAreRefused() {
        #expect(throws: FixedLocationError.self) { try FixedLocation(latitude: .nan, longitude: 0, accuracy: 10) }
        #expect(throws: FixedLocationError.self) { try FixedLocation(latitude: 0, longitude: 0, altitude: .infinity, accuracy: 10) }
        #expect(throws: FixedLocationError.self) { try FixedLocation(latitude: 0, longitude: 0, accuracy: .infinity) }
    }

    @Test func thePositionIsReportedAtEachStartAndEveryIntervalWhileRunning() async throws {
        let clock = ManualClock()
        let location = try FixedLocation(latitude: 48.8566, longitude: 2.3522, accuracy: 30)
        let source = FixedLocationSource(.location(location), interval: .seconds(2), clock: clock)
        let fixes = Observed<[Location]>([])
        source.start(mode: .best, events: SourceEventSink { event in
            if case .location(let fix, _) = event { fixes.update { $0.append(fix) } }
        })
        #expect(fixes.value.count == 1, "at once")
        #expect(fixes.value.first?.horizontalAccuracy == 30 && fixes.value.first?.latitude == 48.8566)
        for expected in 2...4 {
            await waitForSleeper(clock)
            clock.advance(by: .seconds(2))
            await fixes.waitUntil { $0.count == expected }
        }
        source.stop()
        clock.advance(by: .seconds(10))
        #expect(fixes.value.count == 4, "nothing after the stop")
        #expect(source.statistics.fixes == 4 && source.statistics.starts == 1)
    }

    @Test func aFileIsReadAtEachStartAndAnUnreadableOneIsAFatalErrorNamingIt() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("geolocation-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let source = FixedLocationSource(.file(path: path), clock: ManualClock())
        let events = Observed<[SourceEvent]>([])
        let sink = SourceEventSink { event in events.update { $0.append(event) } }

        source.start(mode: .best, events: sink)
        guard case .fatalError(let missing)? = events.value.last else { Issue.record("no fatal error: \(events.value)"); return }
        #expect(missing.code == "fixed.file" && missing.message.contains(path))

        try "52.52\n13.405\n34\n25\n".write(toFile: path, atomically: true, encoding: .utf8)
        source.start(mode: .best, events: sink)
        guard case .location(let fix, _)? = events.value.last else { Issue.record("no fix: \(events.value)"); return }
        #expect(fix.latitude == 52.52 && fix.horizontalAccuracy == 25)
        source.stop()

        try "52.52\n13.405\n34\n".write(toFile: path, atomically: true, encoding: .utf8)
        source.start(mode: .best, events: sink)
        guard case .fatalError(let truncated)? = events.value.last else { Issue.record("no fatal error: \(events.value)"); return }
        #expect(truncated.message.contains("accuracy radius is missing"))
        #expect(source.statistics.starts == 3 && source.statistics.errors == 2)
    }

    @Test("a path that is no small regular file is a clear fatal error, read no further: a device that never ends, a named pipe with no writer, a file too large")
    func aFileThatIsNoSmallRegularFileIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fixed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pipe = directory + "/pipe"
        #expect(mkfifo(pipe, 0o600) == 0)
        let large = directory + "/large"
        try String(repeating: "# a comment that goes on and on\n", count: 4_000).appending("52.52\n13.405\n34\n25\n")
            .write(toFile: large, atomically: true, encoding: .utf8)
        let latin1 = directory + "/latin1"
        try Data([0x23, 0xE9, 0x0A, 0x35, 0x32, 0x0A]).write(to: URL(fileURLWithPath: latin1))
        for (path, reason) in [("/dev/zero", "not a regular file"), (pipe, "not a regular file"), (large, "it may hold at most 65536"), (latin1, "not UTF-8"), (directory, "not a regular file")] {
            let source = FixedLocationSource(.file(path: path), clock: ManualClock())
            let events = Observed<[SourceEvent]>([])
            source.start(mode: .best, events: SourceEventSink { event in events.update { $0.append(event) } })
            guard case .fatalError(let error)? = events.value.last else {
                Issue.record("\(path): no fatal error: \(events.value)")
                continue
            }
            #expect(error.code == "fixed.file" && error.message.contains(path) && error.message.contains(reason), "\(error.message)")
        }
    }

    @Test func anEngineOnAFixedSourceAnswersAOneShotAtTheConfiguredAccuracy() async throws {
        let clock = ManualClock()
        let source = FixedLocationSource(.location(try FixedLocation(latitude: 52.52, longitude: 13.405, accuracy: 25)), clock: clock)
        let engine = LocationEngine(source: source, clock: clock, configuration: LocationEngineConfiguration())
        Task { try await engine.run() }
        let results = Observed<[LocationResult]>([])
        _ = engine.location(accuracy: .block, timeout: .seconds(10)) { result in results.update { $0.append(result) } }
        await engine.sync(advancingTo: clock.now)
        await results.waitUntil { !$0.isEmpty }
        #expect(results.value.first?.status == .success && results.value.first?.location?.horizontalAccuracy == 25)
        await engine.shutdown()
    }

    private func waitForSleeper(_ clock: ManualClock) async {
        while clock.sleeperCount == 0 { await Task.yield() }
    }
}
