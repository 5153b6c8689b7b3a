import Foundation
import LocationEngine
import NIOConcurrencyHelpers
import TestSupport
import Testing
@testable import LocationSourcesGeoClue

/// A stand-in for GeoClue on a private bus that reports a position just before it answers `Stop`, as GeoClue
/// does when a fix comes while the source changes the level: the position is queued ahead of the answer, and
/// belongs to the level being left. The source drops it rather than deliver it as the new level's first fix.
/// Waits are guarded by deadlines; nothing asserts a duration.
@Suite("GeoClue's position reported as the level changes or the source stops", .serialized, .enabled(if: GeoClueTestBed.unavailable == nil, "needs dbus-daemon (Scripts/bootstrap.sh installs it)"))
struct GeoClueLevelChangeTests {
    /// Owns `org.freedesktop.GeoClue2` and serves one client on a thread of its own until stopped: a position
    /// when the client starts at the exact level, one just before each answer to `Stop`, one more when the
    /// test asks (``reportNow()``), and one whose reading it answers only when the test says
    /// (``reportHeld()``, ``answerHeld()``).
    final class ScriptedGeoClue: Sendable {
        static let client = "/org/freedesktop/GeoClue2/Client/1"
        /// The latitude of the position each Location object holds.
        static let latitudes: [String: Double] = [
            "/org/freedesktop/GeoClue2/Location/1": 52.1, "/org/freedesktop/GeoClue2/Location/2": 52.2,
            "/org/freedesktop/GeoClue2/Location/3": 52.3, "/org/freedesktop/GeoClue2/Location/4": 52.4,
        ]
        /// The position whose reading waits for the test.
        static let held = "/org/freedesktop/GeoClue2/Location/4"

        /// The accuracy level of each `Start`, in order.
        let starts = NIOLockedValueBox<[UInt32]>([])
        private let level = NIOLockedValueBox<UInt32>(0)
        private let reportAsked = NIOLockedValueBox<String?>(nil)
        /// Whether the held position's reading was asked, and whether the test let it be answered.
        let heldAsked = NIOLockedValueBox(false)
        private let heldAnswered = NIOLockedValueBox(false)
        private let standIn = NIOLockedValueBox<GeoClueStandIn?>(nil)

        init(address: String) throws {
            let serving = try GeoClueStandIn(address: address) { [self] connection, isStopped in
                while !isStopped() {
                    if let location = reportAsked.withLockedValue({ asked in defer { asked = nil }; return asked }) {
                        report(location, on: connection)
                    }
                    guard case .call(let call)? = try? connection.nextMessage(waitingAtMost: .milliseconds(20)) else { continue }
                    answer(call, on: connection)
                }
            }
            standIn.withLockedValue { $0 = serving }
        }

        /// Asks for one more position (Location 3) from the client as it runs.
        func reportNow() { reportAsked.withLockedValue { $0 = "/org/freedesktop/GeoClue2/Location/3" } }

        /// Reports the held position (Location 4), whose reading is answered once ``answerHeld()`` is called.
        func reportHeld() { reportAsked.withLockedValue { $0 = Self.held } }

        /// Lets the held position's reading be answered.
        func answerHeld() { heldAnswered.withLockedValue { $0 = true } }

        /// Stops serving and waits until the thread has let go of its connection.
        func stop() async throws { try await standIn.withLockedValue { $0 }?.stop() }

        private func answer(_ call: DBusConnection.MethodCall, on connection: DBusConnection) {
            switch (call.interface, call.member) {
            case ("org.freedesktop.GeoClue2.Manager", "GetClient"):
                try? connection.reply(to: call, [.objectPath(Self.client)])
            case ("org.freedesktop.DBus.Properties", "Set"):
                if call.arguments.count == 3, call.arguments[1] == .string("RequestedAccuracyLevel"), case .variant(.uint32(let value)) = call.arguments[2] {
                    level.withLockedValue { $0 = value }
                }
                try? connection.reply(to: call, [])
            case ("org.freedesktop.GeoClue2.Client", "Start"):
                let started = level.withLockedValue { $0 }
                starts.withLockedValue { $0.append(started) }
                try? connection.reply(to: call, [])
                if started == GeoClueAccuracyLevel.exact.rawValue { report("/org/freedesktop/GeoClue2/Location/1", on: connection) }
            case ("org.freedesktop.GeoClue2.Client", "Stop"):
                // A fix that came just before the stop: GeoClue reports it ahead of the answer.
                report("/org/freedesktop/GeoClue2/Location/2", on: connection)
                try? connection.reply(to: call, [])
            case ("org.freedesktop.DBus.Properties", "GetAll"):
                if call.path == Self.held {
                    // The source's thread waits for this answer meanwhile, as it would for a slow GeoClue.
                    heldAsked.withLockedValue { $0 = true }
                    while !heldAnswered.withLockedValue({ $0 }) { usleep(1000) }
                }
                guard let latitude = Self.latitudes[call.path] else {
                    try? connection.replyError(to: call, DBusFailure.Name.unknownObject, "no object at \(call.path)")
                    return
                }
                let properties: [(String, DBusValue)] = [("Latitude", .double(latitude)), ("Longitude", .double(13.4)), ("Accuracy", .double(20))]
                try? connection.reply(to: call, [.array(properties.map { .dictionaryEntry(.string($0.0), .variant($0.1)) })])
            default:
                try? connection.replyError(to: call, DBusFailure.Name.unknownMethod, "\(call.interface).\(call.member) is not scripted")
            }
        }

        private func report(_ location: String, on connection: DBusConnection) {
            try? connection.emitSignal(
                Self.client, "org.freedesktop.GeoClue2.Client", "LocationUpdated", [.objectPath("/"), .objectPath(location)])
        }
    }

    /// Runs `body` with a source on a test bus whose GeoClue is a ``ScriptedGeoClue``, the source's lifetime
    /// running, and stops them all after it.
    private func withStandIn(
        _ body: (ScriptedGeoClue, GeoClueLocationSource, Observed<RecordedEvents>) async throws -> Void
    ) async throws {
        let bed = try await GeoClueTestBed.start(geoclue: false, agent: false)
        let standIn: ScriptedGeoClue
        do {
            standIn = try ScriptedGeoClue(address: bed.busAddress)
        } catch {
            await bed.stop()
            throw error
        }
        let source = GeoClueLocationSource(
            GeoClueConfiguration(desktopId: "locationengine-tests", busAddress: bed.busAddress, callTimeout: .seconds(5)), logger: silentLogger)
        let events = Observed(RecordedEvents())
        let lifetime = Task { await source.run() }
        do {
            try await body(standIn, source, events)
            source.stop()
            lifetime.cancel()
            try await withDeadline(seconds: 30) { await lifetime.value }
        } catch {
            standIn.answerHeld()
            source.stop()
            lifetime.cancel()
            try? await standIn.stop()
            await bed.stop()
            throw error
        }
        try await standIn.stop()
        await bed.stop()
    }

    @Test("a position GeoClue reports ahead of its answer to Stop, at the exact level being left, is not delivered as the city level's")
    func aPositionOfTheLevelBeingLeftIsDropped() async throws {
        try await withStandIn { standIn, source, events in
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            try await withDeadline(seconds: 30) { await events.waitUntil { $0.fixes.count == 1 } }
            source.setMode(.lowest)
            try await GeoClueTestBed.waitFor("the client started again at city level") {
                standIn.starts.withLockedValue { $0 } == [GeoClueAccuracyLevel.exact.rawValue, GeoClueAccuracyLevel.city.rawValue]
            }
            // The city level's own position, after the one reported before the stop.
            standIn.reportNow()
            try await withDeadline(seconds: 30) { await events.waitUntil { $0.fixes.contains { $0.latitude == 52.3 } } }
            #expect(events.value.fixes.map(\.latitude) == [52.1, 52.3], "the exact level's first position, then the city level's")
            #expect(source.statistics.earlierLevelFixes == 1)
            #expect(source.statistics.fixes == 2 && source.statistics.rejectedFixes == 0)
            #expect(events.value.transientErrors.isEmpty && events.value.fatalErrors.isEmpty, "\(events.value)")
        }
    }

    @Test("a position being read when the engine asks for another level is dropped once the client changes level, not delivered as the new level's")
    func aPositionReadAcrossTheChangeIsDropped() async throws {
        try await withStandIn { standIn, source, events in
            // The exact level's next position is being read when the engine asks for the city level.
            try await holdTheExactLevelsSecondPosition(standIn, source, events)
            source.setMode(.lowest)
            standIn.answerHeld()
            try await GeoClueTestBed.waitFor("the client started again at city level") {
                standIn.starts.withLockedValue { $0 } == [GeoClueAccuracyLevel.exact.rawValue, GeoClueAccuracyLevel.city.rawValue]
            }
            standIn.reportNow()
            try await withDeadline(seconds: 30) { await events.waitUntil { $0.fixes.contains { $0.latitude == 52.3 } } }
            #expect(events.value.fixes.map(\.latitude) == [52.1, 52.3], "the held exact position is neither delivered nor kept")
            #expect(source.statistics.earlierLevelFixes == 2, "the held one, and the one reported ahead of the answer to Stop")
        }
    }

    @Test("a position being read while the engine asks for another level and comes back is handed over: the client never changed level")
    func aPositionReadAcrossAChangeUndoneIsHandedOver() async throws {
        try await withStandIn { standIn, source, events in
            try await holdTheExactLevelsSecondPosition(standIn, source, events)
            source.setMode(.lowest)
            source.setMode(.best)
            standIn.answerHeld()
            try await withDeadline(seconds: 30) { await events.waitUntil { $0.fixes.count == 2 } }
            #expect(events.value.fixes.map(\.latitude) == [52.1, 52.4], "GeoClue would not report the held position again")
            #expect(source.statistics.earlierLevelFixes == 0)
            #expect(standIn.starts.withLockedValue { $0 } == [GeoClueAccuracyLevel.exact.rawValue], "the client kept its level")
            // The next position comes once, after the held one: the held one was handed over once.
            standIn.reportNow()
            try await withDeadline(seconds: 30) { await events.waitUntil { $0.fixes.count == 3 } }
            #expect(events.value.fixes.map(\.latitude) == [52.1, 52.4, 52.3])
        }
    }

    @Test("a stop while a position is being handed over returns once the sink has it: nothing reaches the sink after stop returns")
    func aStopWaitsForTheHandOverInProgress() async throws {
        try await withStandIn { _, source, _ in
            let inDelivery = NIOLockedValueBox(false)
            let stopping = ConditionLock(value: false)
            let delivered = NIOLockedValueBox(0)
            source.start(mode: .best, events: SourceEventSink { event in
                guard case .location = event else { return }
                inDelivery.withLockedValue { $0 = true }
                // The sink holds the position until the stop is under way, and a little longer: a stop that did
                // not wait would return meanwhile. (What is asserted does not depend on how long: the stop waits
                // for the sink to return.) The wait for the stop is bounded, so a broken test cannot hang here.
                if stopping.lock(whenValue: true, timeoutSeconds: 30) { stopping.unlock() }
                Thread.sleep(forTimeInterval: 0.2)
                delivered.withLockedValue { $0 += 1 }
            })
            try await GeoClueTestBed.waitFor("the first position's delivery") { inDelivery.withLockedValue { $0 } }
            stopping.lock()
            stopping.unlock(withValue: true)
            source.stop()
            #expect(delivered.withLockedValue { $0 } == 1, "before, stop returned while the position was still being handed over")
        }
    }

    @Test("a sink that stops the source from inside a delivery, on the source's thread, does not wait for itself")
    func aStopFromInsideTheSink() async throws {
        try await withStandIn { _, source, _ in
            let fixes = NIOLockedValueBox(0)
            source.start(mode: .best, events: SourceEventSink { event in
                guard case .location = event else { return }
                fixes.withLockedValue { $0 += 1 }
                source.stop()
            })
            try await GeoClueTestBed.waitFor("the first position") { fixes.withLockedValue { $0 } == 1 }
            // The run goes on to its end: the source's lifetime ends within its deadline after this (a worker
            // waiting for its own delivery would hold it for ever).
        }
    }

    /// Starts `source` at the exact level, waits for its first position, and has the stand-in report the held one
    /// (Location 4), whose reading waits for ``ScriptedGeoClue/answerHeld()``.
    private func holdTheExactLevelsSecondPosition(_ standIn: ScriptedGeoClue, _ source: GeoClueLocationSource, _ events: Observed<RecordedEvents>) async throws {
        source.start(mode: .best, events: RecordedEvents.sink(into: events))
        try await withDeadline(seconds: 30) { await events.waitUntil { $0.fixes.count == 1 } }
        standIn.reportHeld()
        try await GeoClueTestBed.waitFor("the held position's reading") { standIn.heldAsked.withLockedValue { $0 } }
    }
}
