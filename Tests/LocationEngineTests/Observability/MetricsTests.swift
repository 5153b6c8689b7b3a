import LocationEngine
import LocationEngineTestKit
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
}
