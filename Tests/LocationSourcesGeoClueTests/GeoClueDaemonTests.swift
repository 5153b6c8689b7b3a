import Foundation
import LocationEngine
import TestSupport
import Testing
@testable import LocationSourcesGeoClue

/// The GeoClue source against the real GeoClue2 on a private system bus (``GeoClueTestBed``). Waits are
/// guarded by deadlines (a component that never answers fails the test); nothing asserts a duration.
@Suite("GeoClue source against the real daemon", .serialized, .enabled(if: GeoClueTestBed.unavailable == nil))
struct GeoClueDaemonTests {
    static func source(_ bed: GeoClueTestBed, desktopId: String = "locationengine-tests", callTimeout: Duration = .seconds(5)) -> GeoClueLocationSource {
        GeoClueLocationSource(GeoClueConfiguration(desktopId: desktopId, busAddress: bed.busAddress, callTimeout: callTimeout, retryDelay: .milliseconds(50)))
    }

    /// Whether GeoClue's manager says a client is active (`InUse`).
    static func inUse(_ bed: GeoClueTestBed) -> Bool? {
        guard let connection = try? DBusConnection(address: bed.busAddress),
            let answer = try? connection.call(
                GeoClueSession.service, "/org/freedesktop/GeoClue2/Manager", "org.freedesktop.DBus.Properties", "Get",
                [.string("org.freedesktop.GeoClue2.Manager"), .string("InUse")], timeout: .seconds(2))
        else { return nil }
        return answer.first?.unwrapped == .boolean(true)
    }

    @Test("started, it delivers GeoClue's positions (from the synthetic receiver's NMEA); stopped, GeoClue's client stops")
    func startAndStop() async throws {
        let bed = try await GeoClueTestBed.start()
        let events = Observed(RecordedEvents())
        let source = Self.source(bed)
        do {
            try await withDeadline(seconds: 30) {
                source.start(mode: .best, events: RecordedEvents.sink(into: events))
                await events.waitUntil { $0.fixes.count >= 2 }
                try await bed.waitFor("GeoClue in use") { Self.inUse(bed) == true }
                source.stop()
                try await bed.waitFor("GeoClue no longer in use") { Self.inUse(bed) == false }
            }
        } catch {
            source.stop()
            await bed.stop()
            throw error
        }
        await bed.stop()
        let fixes = events.value.fixes
        // The walk starts in Berlin; GeoClue's NMEA source reports what the receiver says.
        #expect(fixes.allSatisfy { abs($0.latitude - 52.52) < 0.05 && abs($0.longitude - 13.405) < 0.05 && $0.isValid })
        #expect(events.value.fatalErrors.isEmpty && events.value.transientErrors.isEmpty)
        #expect(source.statistics.starts == 1 && source.statistics.clientStarts == 1 && source.statistics.rejectedFixes == 0)
        #expect(source.statistics.handOverTimes.count == source.statistics.fixes)
    }
}
