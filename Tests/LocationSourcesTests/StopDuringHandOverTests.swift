import Foundation
import LocationEngine
@testable import LocationSources
import NIOConcurrencyHelpers
import Testing
import TestSupport

/// A stop that lands while a source hands a fix to its sink returns once the sink has it: nothing of the
/// stopped session reaches the sink, or counts as delivered, after the stop returns.
@Suite("A stop during a hand-over")
struct StopDuringHandOverTests {
    @Test("gpsd: the stop waits for the fix being handed over")
    func gpsd() async throws {
        let fake = try await TestTCPServer.start { client in
            client.send(#"{"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14}"# + "\n")
            for second in 1...3 {
                client.send(#"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:0\#(second).000Z","lat":52.5,"lon":13.4,"eph":12.0}"# + "\n")
            }
        }
        let source = GPSDLocationSource(configuration: GPSDConfiguration(port: fake.port, reconnect: .waitingForTheTest), logger: quietLogger())
        try await stopWaitsForTheHandOver(source) { source.statistics.fixesDelivered }
        await fake.close()
    }

    @Test("NMEA over TCP: the stop waits for the fix being handed over")
    func nmea() async throws {
        let stream = SyntheticStream(count: 30)
        let feed = try await TestTCPServer.start { client in client.send(stream.blocks.joined()) }
        let source = NMEAStreamSource(
            configuration: NMEAStreamConfiguration(endpoint: .tcp(host: "127.0.0.1", port: feed.port), reconnect: .waitingForTheTest),
            logger: quietLogger())
        try await stopWaitsForTheHandOver(source) { source.statistics.fixesDelivered }
        await feed.close()
    }

    /// Starts `source` with a sink that holds the first fix until the stop is under way, and a little longer: a
    /// stop that did not wait would return meanwhile. (What is asserted does not depend on how long: the stop
    /// waits for the sink to return.) The sink's wait for the stop is bounded, and the test lets it go if it
    /// cannot stop, so that a broken test holds no event loop for long.
    private func stopWaitsForTheHandOver(_ source: some LocationSource, delivered: @escaping @Sendable () -> Int) async throws {
        let inHandOver = NIOLockedValueBox(false)
        let stopping = ConditionLock(value: false)
        let sawTheStop = NIOLockedValueBox(false)
        let received = NIOLockedValueBox(0)
        source.start(mode: .best, events: SourceEventSink { event in
            guard case .location = event else { return }
            if !inHandOver.withLockedValue({ $0 }) {
                inHandOver.withLockedValue { $0 = true }
                if stopping.lock(whenValue: true, timeoutSeconds: 300) {
                    stopping.unlock()
                    sawTheStop.withLockedValue { $0 = true }
                }
                Thread.sleep(forTimeInterval: 0.2)
            }
            received.withLockedValue { $0 += 1 }
        })
        let letGo = {
            stopping.lock()
            stopping.unlock(withValue: true)
        }
        do {
            try await pollUntil("the first fix's hand-over") { inHandOver.withLockedValue { $0 } }
        } catch {
            letGo()
            source.stop()
            throw error
        }
        letGo()
        source.stop()
        let atStop = received.withLockedValue { $0 }
        #expect(sawTheStop.withLockedValue { $0 }, "the sink held the first fix until the stop was under way")
        #expect(atStop == 1, "before, the stop returned while the fix was still being handed over")
        #expect(delivered() == atStop, "what counts as delivered is what the sink got")
    }
}
