import LocationEngine
import LocationEngineTestKit
import Logging
import MetricsTestKit
import Testing

@Suite("Metrics through swift-metrics (an in-memory factory, never a bootstrap)")
struct MetricsTests {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let metrics = TestMetrics()

    func makeEngine() -> LocationEngine<ManualClock> {
        var configuration = LocationEngineConfiguration(linger: .zero)
        configuration.metricsFactory = metrics
        configuration.metricsDimensions = [("engine", "test")]
        let engine = LocationEngine(source: source, clock: clock, configuration: configuration, logger: quietLogger)
        Task { try await engine.run() }
        return engine
    }

    func ended(_ kind: String, _ outcome: String) -> Int64 {
        metrics.counterTotal(
            label: "locationengine_requests_ended", dimensions: [("engine", "test"), ("kind", kind), ("outcome", outcome)])
    }

    @Test("requests by kind and outcome, pending gauge, source on/off, mode, starts and stops, fixes")
    func requestAndSourceMetrics() async throws {
        let engine = makeEngine()
        let cancelled = engine.location(accuracy: .room, timeout: nil) { _ in }
        engine.location(accuracy: .block, timeout: .seconds(5)) { _ in }
        engine.location(accuracy: .room, timeout: .seconds(5)) { _ in }
        let subscription = engine.updates { _, _ in }
        await engine.sync()
        let dims = [("engine", "test")]
        #expect(metrics.counterTotal(label: "locationengine_requests_submitted", dimensions: dims + [("kind", "oneshot")]) == 3)
        #expect(metrics.counterTotal(label: "locationengine_requests_submitted", dimensions: dims + [("kind", "subscription")]) == 1)
        #expect(try metrics.expectGauge("locationengine_requests_pending", dims + [("kind", "oneshot")]).lastValue == 3)
        #expect(try metrics.expectGauge("locationengine_source_on", dims).lastValue == 1)
        #expect(try metrics.expectGauge("locationengine_source_mode", dims).lastValue == Double(PowerMode.best.rawValue))
        engine.cancel(cancelled)
        source.emit(fix(50))
        source.emit(Location(latitude: .nan, longitude: 0, horizontalAccuracy: 5))
        await engine.sync(advancingBy: .seconds(5))
        engine.forceComplete(subscription)
        await engine.sync()
        #expect(ended("oneshot", "cancelled") == 1)
        #expect(ended("oneshot", "success") == 1)
        #expect(ended("oneshot", "timed_out") == 1)
        #expect(ended("subscription", "force_completed") == 1)
        #expect(try metrics.expectGauge("locationengine_requests_pending", dims + [("kind", "oneshot")]).lastValue == 0)
        #expect(try metrics.expectGauge("locationengine_source_on", dims).lastValue == 0)
        #expect(metrics.counterTotal(label: "locationengine_source_starts", dimensions: dims) == 1)
        #expect(metrics.counterTotal(label: "locationengine_source_stops", dimensions: dims) == 1)
        #expect(metrics.counterTotal(label: "locationengine_fixes", dimensions: dims + [("result", "accepted")]) == 1)
        #expect(metrics.counterTotal(label: "locationengine_fixes", dimensions: dims + [("result", "dropped")]) == 1)
        #expect(try metrics.expectTimer("locationengine_timeout_lateness", dims).values == [0])
        #expect(try metrics.expectTimer("locationengine_fix_delivery_latency", dims).values.count == 1)
    }

    @Test("a running source's time on is live: published on a fix, once a second at most, not only when it stops")
    func liveOnTime() async throws {
        let engine = makeEngine()
        engine.location(accuracy: .room, timeout: nil) { _ in }
        await engine.sync()
        let own = [("engine", "test"), ("source", "0"), ("type", "ScriptedLocationSource")]
        await engine.sync(advancingBy: .seconds(3))
        source.emit(fix(50))
        await engine.sync()
        #expect(try metrics.expectGauge("locationengine_source_on_seconds", own).lastValue == 3)
        await engine.sync(advancingBy: .milliseconds(500))
        source.emit(fix(50))
        await engine.sync()
        #expect(try metrics.expectGauge("locationengine_source_on_seconds", own).lastValue == 3, "not again within the second")
        await engine.sync(advancingBy: .seconds(1))
        source.emit(fix(50))
        await engine.sync()
        #expect(try metrics.expectGauge("locationengine_source_on_seconds", own).lastValue == 4.5)
        #expect(try metrics.expectGauge("locationengine_source_on", [("engine", "test")]).lastValue == 1, "while it runs")
    }

    @Test("one authorization prompt is counted once, however many requests wait")
    func promptMetric() async {
        var configuration = LocationEngineConfiguration(
            linger: .zero,
            authorizationProvider: SimulatedAuthorizationProvider(.init(authorizationAnswers: [.init(.allowWhileUsing(), after: .seconds(1))])),
            usage: UsageDeclarations(whenInUse: "Shows where you are."))
        configuration.metricsFactory = metrics
        let engine = LocationEngine(source: source, clock: clock, configuration: configuration, logger: quietLogger)
        Task { try await engine.run() }
        for _ in 0..<100 { engine.location(accuracy: .city, timeout: nil) { _ in } }
        await engine.sync()
        #expect(metrics.counterTotal(label: "locationengine_authorization_prompts", dimensions: [("kind", "authorization")]) == 1)
    }

    @Test("with two sources the gauges say whether any runs and the finest mode running: a source stopping beside another running leaves them on")
    func gaugesOverSeveralSources() async throws {
        let gnss = ScriptedLocationSource(capabilities: SourceCapabilities(providesCourse: true, powerProfile: .mt3339, firstFixTime: .seconds(5)))
        let coarse = ScriptedLocationSource(capabilities: SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.005)))
        var configuration = LocationEngineConfiguration(linger: .zero)
        configuration.powerDown = .fixedLinger
        configuration.metricsFactory = metrics
        let engine = LocationEngine(sources: [gnss, coarse], clock: clock, configuration: configuration, logger: quietLogger)
        Task { try await engine.run() }
        engine.location(accuracy: .city, timeout: nil) { _ in }
        await engine.sync()
        #expect(coarse.isRunning && !gnss.isRunning)
        #expect(try metrics.expectGauge("locationengine_source_mode", []).lastValue == Double(PowerMode.lowest.rawValue))
        // A room request moves the demand to the GNSS; the coarse source goes on while the GNSS acquires, and once
        // its fix answers the city request, with none left, stops at once.
        engine.location(accuracy: .room, timeout: nil) { _ in }
        await engine.sync()
        #expect(gnss.isRunning && coarse.isRunning)
        coarse.emit(Location(latitude: 52.52, longitude: 13.405, horizontalAccuracy: 900))
        await engine.sync()
        #expect(gnss.isRunning && !coarse.isRunning)
        #expect(try metrics.expectGauge("locationengine_source_on", []).lastValue == 1, "the GNSS runs")
        #expect(try metrics.expectGauge("locationengine_source_mode", []).lastValue == Double(PowerMode.best.rawValue))
        #expect(await engine.statistics().sourceMode == .best)
        await engine.shutdown()
        #expect(try metrics.expectGauge("locationengine_source_on", []).lastValue == 0)
        #expect(try metrics.expectGauge("locationengine_source_mode", []).lastValue == -1)
    }

    @Test("a request made after the shutdown is counted as submitted and ended shut_down, in the metrics and the statistics")
    func requestsAfterShutdownCounted() async throws {
        let engine = makeEngine()
        await engine.shutdown()
        engine.location(accuracy: .city, timeout: nil) { _ in }
        engine.updates { _, _ in }
        let dims = [("engine", "test")]
        #expect(metrics.counterTotal(label: "locationengine_requests_submitted", dimensions: dims + [("kind", "oneshot")]) == 1)
        #expect(metrics.counterTotal(label: "locationengine_requests_submitted", dimensions: dims + [("kind", "subscription")]) == 1)
        #expect(ended("oneshot", "shut_down") == 1 && ended("subscription", "shut_down") == 1)
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsSubmitted == 1 && statistics.oneShotsFailed == 1)
        #expect(statistics.subscriptionsSubmitted == 1 && statistics.subscriptionsEnded == 1)
    }

    @Test("a fix another source's better one supersedes is counted superseded, not also dropped")
    func supersededIsNotDropped() async throws {
        let gnss = ScriptedLocationSource()
        let coarse = ScriptedLocationSource(capabilities: SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.005)))
        var configuration = LocationEngineConfiguration(linger: .zero)
        configuration.powerDown = .fixedLinger
        configuration.fallbackAfter = .seconds(20)
        configuration.metricsFactory = metrics
        let engine = LocationEngine(sources: [gnss, coarse], clock: clock, configuration: configuration, logger: quietLogger)
        Task { try await engine.run() }
        // A city subscription runs the coarse source; silent, it gets the GNSS beside it as the fallback.
        engine.updates(SubscriptionOptions(accuracy: .city)) { _, _ in }
        await engine.sync()
        await engine.sync(advancingTo: clock.now.advanced(by: .seconds(60)))
        #expect(coarse.isRunning && gnss.isRunning)
        gnss.emit(Location(latitude: 52.52, longitude: 13.405, horizontalAccuracy: 5))
        await engine.sync()
        coarse.emit(Location(latitude: 52.5208, longitude: 13.405, horizontalAccuracy: 1000))
        await engine.sync()
        #expect(await engine.statistics().fixesSuperseded == 1)
        #expect(metrics.counterTotal(label: "locationengine_fixes", dimensions: [("result", "dropped")]) == 0)
        #expect(metrics.counterTotal(label: "locationengine_fixes", dimensions: [("result", "accepted")]) == 1)
    }

    @Test("with nothing declared, no authorization request is counted, and the configuration error is logged once at error, then at debug")
    func nothingDeclaredCountedAndLoggedOnce() async {
        let handler = RecordingLogHandler()
        let engine = LocationEngine(
            source: source, clock: clock,
            configuration: .init(authorizationProvider: SimulatedAuthorizationProvider(.init()), usage: .none),
            logger: Logger(label: "test") { _ in handler })
        Task { try await engine.run() }
        for _ in 0..<100 { engine.location(accuracy: .city, timeout: nil) { _ in } }
        await engine.sync()
        #expect(await engine.statistics().authorizationRequests == 0)
        let errors = handler.records.withLockedValue { $0.filter { $0.hasPrefix("error") } }
        #expect(errors.count == 1, "\(errors)")
        await engine.shutdown()
    }
}
