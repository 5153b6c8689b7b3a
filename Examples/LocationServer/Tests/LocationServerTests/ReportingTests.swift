import Foundation
import LocationEngine
import Testing

@testable import LocationServer

@Suite("Events and the exit report")
struct ReportingTests {
    @Test("subscription events become server-sent events with JSON data")
    func serverSentEvents() throws {
        let fix = Location(latitude: 1, longitude: 2, horizontalAccuracy: 3, course: 0)
        let heading = ServerSentEvent(.heading(HeadingUpdate(course: 0, location: fix)))
        #expect(heading.name == "heading")
        let decoded = try JSONDecoder().decode(HeadingJSON.self, from: Data(heading.data.utf8))
        #expect(decoded.course == 0)   // north is a course, not "none"
        let error = ServerSentEvent(.sourceError(SourceError(code: "gpsd.disconnected", message: "say \"why\"")))
        #expect(error.name == "error")
        #expect(try JSONDecoder().decode([String: String].self, from: Data(error.data.utf8))["message"] == "say \"why\"")
        #expect(String(buffer: ServerSentEvent(.ended(.durationElapsed)).buffer) == "event: end\ndata: {\"reason\":\"duration_elapsed\",\"updates\":0}\n\n")
    }

    @Test("the exit report counts every ending of a one-shot, cancellations apart")
    func exitReport() throws {
        var statistics = SchedulerStatistics()
        statistics.oneShotsSubmitted = 10
        statistics.oneShotsSucceeded = 4
        statistics.oneShotsTimedOut = 3
        statistics.oneShotsForceCompleted = 1
        statistics.oneShotsFailed = 1
        statistics.oneShotsCancelled = 1
        let engine = ExitReport.Engine(statistics)
        #expect(engine.oneShotsEnded + engine.oneShotsCancelled == engine.oneShotsSubmitted)
        #expect(!engine.sourceOn)
        let report = ExitReport(
            http: .init(), geofences: .init(), engine: engine, heapIdleBytes: 1, heapAtExitBytes: 2, cpuSeconds: 0.5)
        let line = report.json
        #expect(!line.contains("\n"))
        #expect(try JSONDecoder().decode(ExitReport.self, from: Data(line.utf8)).engine.oneShotsEnded == 9)
    }
}
