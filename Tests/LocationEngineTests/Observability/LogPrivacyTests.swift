import LocationEngine
import LocationEngineTestKit
import Logging
import NIOConcurrencyHelpers
import Testing

/// Keeps every log record in memory (tests never bootstrap a logging backend).
final class RecordingLogHandler: LogHandler, Sendable {
    let records = NIOLockedValueBox<[String]>([])
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        records.withLockedValue { $0.append("\(event.level) \(event.message) \(fields)") }
    }
}

@Suite("Privacy in logs")
struct LogPrivacyTests {
    @Test("the engine never logs coordinates, even at trace, through authorization changes, fixes and errors")
    func engineLogsNoCoordinates() async {
        let handler = RecordingLogHandler()
        let clock = ManualClock()
        let source = ScriptedLocationSource()
        let user = SimulatedAuthorizationProvider(.init(
            authorizationAnswers: [.init(.allowOnce(precise: false))], fullAccuracyAnswers: [.init(true)]))
        let engine = LocationEngine(
            source: source, clock: clock,
            configuration: .init(
                authorizationProvider: user,
                usage: UsageDeclarations(whenInUse: "map", temporaryFullAccuracyPurposes: ["Navigation": "directions"])),
            logger: Logger(label: "test") { _ in handler })
        let precise = Location(latitude: 48.137_154, longitude: 11.576_124, horizontalAccuracy: 4.2, altitude: 519.3, speed: 1.7, course: 93.4)
        engine.location(accuracy: .city, timeout: .seconds(5)) { _ in }
        engine.location(accuracy: .room, timeout: .seconds(5), purposeKey: "Navigation") { _ in }
        await engine.sync()
        source.emit(precise)
        source.emitTransientError(SourceError(code: "test.transient", message: "no fix"))
        await engine.sync()
        clock.advance(by: .seconds(5))
        engine.endSession()
        await engine.sync()
        let records = handler.records.withLockedValue { $0 }
        #expect(records.contains { $0.contains("authorization changed") }, "the handler saw the engine's logs")
        for fragment in ["48.13", "11.57", "4.2", "519", "93.4"] {
            #expect(!records.contains { $0.contains(fragment) }, "a log record carries \(fragment)")
        }
    }
}
