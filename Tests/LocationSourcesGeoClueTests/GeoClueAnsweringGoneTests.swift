import Foundation
import LocationEngine
import NIOConcurrencyHelpers
import TestSupport
import Testing
@testable import LocationSourcesGeoClue

/// A process owns GeoClue's name on a private bus and answers every call as though nothing were there
/// (`UnknownObject`): the source asks once more at once, then only after a growing pause, saying so; it never
/// asks in a loop without end. Waits are guarded by deadlines; nothing asserts a duration.
@Suite("GeoClue that owns its name and answers that nothing is there", .serialized, .enabled(if: GeoClueTestBed.unavailable == nil, "needs dbus-daemon (Scripts/bootstrap.sh installs it)"))
struct GeoClueAnsweringGoneTests {
    /// Owns `org.freedesktop.GeoClue2` and answers each call with `UnknownObject`, counting them, on a thread of
    /// its own until stopped.
    final class GoneGeoClue: Sendable {
        let calls = NIOLockedValueBox(0)
        private let standIn: GeoClueStandIn

        init(address: String) throws {
            let calls = calls
            standIn = try GeoClueStandIn(address: address) { connection, isStopped in
                while !isStopped() {
                    guard case .call(let call)? = try? connection.nextMessage(waitingAtMost: .milliseconds(20)) else { continue }
                    calls.withLockedValue { $0 += 1 }
                    try? connection.replyError(to: call, DBusFailure.Name.unknownObject, "no object at \(call.path)")
                }
            }
        }

        /// Stops answering and waits until the thread has let go of its connection.
        func stop() async throws { try await standIn.stop() }
    }

    @Test("asked once more at once, then after a pause it says is coming, and not again until it is over")
    func answeredGoneIsAskedAgainAfterAPause() async throws {
        let bed = try await GeoClueTestBed.start(geoclue: false, agent: false)
        let impostor: GoneGeoClue
        do {
            impostor = try GoneGeoClue(address: bed.busAddress)
        } catch {
            await bed.stop()
            throw error
        }
        // A pause far longer than the test: only a stop ends it.
        let source = GeoClueLocationSource(
            GeoClueConfiguration(
                desktopId: "locationengine-tests", busAddress: bed.busAddress, callTimeout: .seconds(5), retryDelay: .seconds(3600)),
            logger: silentLogger)
        let events = Observed(RecordedEvents())
        let lifetime = Task { await source.run() }
        var callsWhenPaused = 0
        do {
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            try await withDeadline(seconds: 30) {
                await events.waitUntil { $0.transientErrors.contains { $0.code == "geoclue.call" } }
            }
            // Every call made so far was answered before the source said it pauses.
            callsWhenPaused = impostor.calls.withLockedValue { $0 }
            source.stop()
            lifetime.cancel()
            try await withDeadline(seconds: 30) { await lifetime.value }
        } catch {
            source.stop()
            lifetime.cancel()
            try? await impostor.stop()
            await bed.stop()
            throw error
        }
        try await impostor.stop()
        await bed.stop()
        #expect(callsWhenPaused == 2, "GetClient, and once more at once")
        #expect(impostor.calls.withLockedValue { $0 } == callsWhenPaused, "nothing asked during the pause")
        let said = events.value.transientErrors.filter { $0.code == "geoclue.call" }
        #expect(said.count == 1 && said.allSatisfy { $0.message.contains(DBusFailure.Name.unknownObject) })
        #expect(events.value.fatalErrors.isEmpty)
    }
}
