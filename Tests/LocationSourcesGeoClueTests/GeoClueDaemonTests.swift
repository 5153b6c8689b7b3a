import Foundation
import LocationEngine
import TestSupport
import Testing
@testable import LocationSourcesGeoClue

/// The GeoClue source against the real GeoClue2 on a private system bus (``GeoClueTestBed``). Waits are
/// guarded by deadlines (a component that never answers fails the test); nothing asserts a duration.
@Suite("GeoClue source against the real daemon", .serialized, .enabled(if: GeoClueTestBed.unavailable == nil, "needs dbus-daemon and GeoClue2 with its demo agent (Scripts/bootstrap.sh installs them)"))
struct GeoClueDaemonTests {
    static func source(
        _ bed: GeoClueTestBed, desktopId: String = "locationengine-tests", callTimeout: Duration = .seconds(5),
        accuracyClasses: [Double: Double] = GeoClueConfiguration.nmeaAccuracyClasses
    ) -> GeoClueLocationSource {
        GeoClueLocationSource(
            GeoClueConfiguration(
                desktopId: desktopId, busAddress: bed.busAddress, callTimeout: callTimeout, retryDelay: .milliseconds(50),
                accuracyClasses: accuracyClasses), logger: silentLogger)
    }

    /// Whether GeoClue's manager says a client is active (`InUse`).
    static func inUse(_ bed: GeoClueTestBed) -> Bool? {
        guard let connection = try? DBusConnection(address: bed.busAddress, timeout: .seconds(2)),
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
        let lifetime = Task { await source.run() }
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
            lifetime.cancel()
            await bed.stop()
            throw error
        }
        lifetime.cancel()
        // The source's run ends once its thread has: bounded, as a thread held by the bus would hold it.
        try await withDeadline(seconds: 30) { await lifetime.value }
        await bed.stop()
        let fixes = events.value.fixes
        // The walk starts in Berlin; GeoClue's NMEA source reports what the receiver says.
        #expect(fixes.allSatisfy { abs($0.latitude - 52.52) < 0.05 && abs($0.longitude - 13.405) < 0.05 && $0.isValid })
        #expect(events.value.fatalErrors.isEmpty && events.value.transientErrors.isEmpty)
        #expect(source.statistics.starts == 1 && source.statistics.clientStarts == 1 && source.statistics.rejectedFixes == 0)
        #expect(source.statistics.handOverTimes.count == source.statistics.fixes)
    }
}

extension GeoClueDaemonTests {
    /// Runs `body` with a bed and a source, stopping both whatever happens; fails after `seconds`. The source's
    /// lifetime (its `run()`) is the test's, unless `runsSource` is false (an engine runs it).
    static func withBed(
        geoclue: Bool = true, agent: Bool = true, activatable: Bool = false, runsSource: Bool = true, desktopId: String = "locationengine-tests", callTimeout: Duration = .seconds(5),
        fixInterval: Double = 1, seconds: Double = 40, accuracyClasses: [Double: Double] = GeoClueConfiguration.nmeaAccuracyClasses,
        busLimits: [String: Int] = [:],
        _ body: @escaping @Sendable (GeoClueTestBed, GeoClueLocationSource, Observed<RecordedEvents>) async throws -> Void
    ) async throws {
        let bed = try await GeoClueTestBed.start(geoclue: geoclue, agent: agent, activatable: activatable, fixInterval: fixInterval, busLimits: busLimits)
        let source = source(bed, desktopId: desktopId, callTimeout: callTimeout, accuracyClasses: accuracyClasses)
        let events = Observed(RecordedEvents())
        let lifetime = runsSource ? Task { await source.run() } : nil
        do {
            try await withDeadline(seconds: seconds) { try await body(bed, source, events) }
        } catch {
            source.stop()
            lifetime?.cancel()
            await bed.stop()
            throw error
        }
        source.stop()
        lifetime?.cancel()
        do {
            try await withDeadline(seconds: 30) { await lifetime?.value }
        } catch {
            await bed.stop()
            throw error
        }
        await bed.stop()
    }

    @Test("the requested accuracy level follows the engine's mode; a change restarts GeoClue's client at the new level")
    func levels() async throws {
        try await Self.withBed { bed, source, events in
            source.start(mode: .lowest, events: RecordedEvents.sink(into: events))
            try await bed.waitFor("a client at city level") { source.statistics.level == .city && source.statistics.clientStarts == 1 }
            source.setMode(.best)
            try await bed.waitFor("the client at exact level") { source.statistics.level == .exact && source.statistics.clientStarts == 2 }
            let before = events.value.fixes.count
            await events.waitUntil { $0.fixes.count > before }
        }
    }

    @Test("GeoClue absent: a transient error naming the service, then positions once its name appears")
    func absent() async throws {
        try await Self.withBed(geoclue: false) { bed, source, events in
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            await events.waitUntil { !$0.transientErrors.isEmpty }
            let error = events.value.transientErrors[0]
            #expect(error.code == "geoclue.absent" && error.message.contains("org.freedesktop.GeoClue2"))
            try await bed.startGeoClue()
            await events.waitUntil { !$0.fixes.isEmpty }
            #expect(events.value.fatalErrors.isEmpty)
        }
    }

    @Test("GeoClue started on demand, as on a stock system: the source has the bus start it and delivers its positions, no error")
    func activated() async throws {
        try await Self.withBed(geoclue: false, activatable: true) { bed, source, events in
            #expect(!bed.geoclueIsOnTheBus())
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            await events.waitUntil { !$0.fixes.isEmpty }
            #expect(source.statistics.activations == 1 && events.value.transientErrors.isEmpty && events.value.fatalErrors.isEmpty)
        }
    }

    @Test("a call to a path a peer made up (a signal's argument) is refused with an error, not libdbus's abort of the process")
    func invalidCallIsAnError() async throws {
        try await Self.withBed(geoclue: false, agent: false, runsSource: false) { bed, _, _ in
            let bus = try DBusConnection(address: bed.busAddress, timeout: .seconds(2))
            for (path, member) in [("x", "GetAll"), ("/org/freedesktop/GeoClue2/Client/1", "Get-All"), ("/a//b", "GetAll")] {
                #expect(throws: DBusFailure.self) {
                    try bus.call(GeoClueSession.service, path, "org.freedesktop.DBus.Properties", member, timeout: .seconds(2))
                }
                #expect(throws: DBusFailure.self) { try bus.send(GeoClueSession.service, path, "org.freedesktop.DBus.Properties", member) }
            }
        }
    }

    @Test("GeoClue killed and restarted mid-run: a transient error, a new client as soon as its name is back, positions again")
    func restart() async throws {
        try await Self.withBed { bed, source, events in
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            await events.waitUntil { !$0.fixes.isEmpty }
            try await bed.killGeoClue()
            await events.waitUntil { $0.transientErrors.contains { $0.code == "geoclue.absent" } }
            let fixesBefore = events.value.fixes.count
            try await bed.startGeoClue()
            let back = ContinuousClock.now
            try await bed.waitFor("a new client") { source.statistics.clientStarts == 2 }
            // A figure for the docs (GeoClue's name back to the client started again), not an expectation.
            print("GeoClue restart: client started again \(ContinuousClock.now - back) after its name reappeared")
            await events.waitUntil { $0.fixes.count > fixesBefore }
            #expect(source.statistics.serviceRestarts == 1 && events.value.fatalErrors.isEmpty)
        }
    }

    @Test("no agent for the user: GetClient goes unanswered, a clear transient error says what to run, and it goes on once one runs")
    func noAgent() async throws {
        try await Self.withBed(agent: false, callTimeout: .milliseconds(500)) { bed, source, events in
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            await events.waitUntil { $0.transientErrors.contains { $0.code == "geoclue.agent" } }
            let error = try #require(events.value.transientErrors.first { $0.code == "geoclue.agent" })
            #expect(error.message.contains("agent") && error.message.contains("locationengine-tests"))
            try await bed.startAgent()
            await events.waitUntil { !$0.fixes.isEmpty }
            #expect(events.value.fatalErrors.isEmpty)
        }
    }

    @Test("no agent for a long while: the unanswered calls do not pile up in the bus past its limit (LimitsExceeded at the 129th), the hint keeps coming")
    func noAgentForLong() async throws {
        try await Self.withBed(agent: false, callTimeout: .milliseconds(20)) { bed, source, events in
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            try await bed.waitFor("200 unanswered calls") { source.statistics.agentWaits >= 200 }
            let codes = Set(events.value.transientErrors.map(\.code))
            #expect(codes == ["geoclue.agent"], "\(events.value.transientErrors.filter { $0.code != "geoclue.agent" }.prefix(3))")
            try await bed.startAgent()
            await events.waitUntil { !$0.fixes.isEmpty }
        }
    }

    @Test("the bus refuses the source's match rule (a limit): a transient error, and it tries again, rather than going silent")
    func aRefusedMatchRuleIsSaidAndRetried() async throws {
        try await Self.withBed(busLimits: ["max_match_rules_per_connection": 0]) { bed, source, events in
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            await events.waitUntil { $0.transientErrors.filter { $0.code == "geoclue.call" }.count >= 4 }
            #expect(events.value.transientErrors.first?.message.contains("refused to watch for GeoClue") == true)
            // The pause grows with the refusals in a row, each on a new connection (the test bed retries from 50 ms).
            let pauses = events.value.transientErrors.prefix(4).map { $0.message.components(separatedBy: "connecting again in ").last ?? "" }
            #expect(pauses == ["0.05 seconds", "0.1 seconds", "0.2 seconds", "0.4 seconds"])
            #expect(source.statistics.clientStarts == 0 && events.value.fatalErrors.isEmpty)
        }
    }

    @Test("the user's agent has location off: a fatal error (geoclue.denied) when the engine does not use GeoClue's authorization")
    func deniedByTheAgent() async throws {
        try await Self.withBed(agent: false) { bed, source, events in
            let agent = try ScriptedGeoClueAgent(address: bed.busAddress, authorize: false)
            defer { agent.stop() }
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            await events.waitUntil { !$0.fatalErrors.isEmpty }
            let fatal = try #require(events.value.fatalErrors.first)
            #expect(fatal.code == "geoclue.denied" && fatal.message.contains("locationengine-tests"))
            #expect(source.statistics.denials == 1 && events.value.fixes.isEmpty)
        }
    }

    @Test("the bus goes away mid-run: a transient error; back at the same address, positions again")
    func busGone() async throws {
        try await Self.withBed { bed, source, events in
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            await events.waitUntil { !$0.fixes.isEmpty }
            try await bed.restartBus()
            await events.waitUntil { $0.transientErrors.contains { $0.code == "geoclue.bus" } }
            let fixesBefore = events.value.fixes.count
            await events.waitUntil { $0.fixes.count > fixesBefore }
            #expect(events.value.fatalErrors.isEmpty)
        }
    }

    @Test("between fixes the source's thread sleeps: it wakes for the bus's messages and the engine's requests, not on a timer")
    func sleepsBetweenFixes() async throws {
        try await Self.withBed { _, source, events in
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            await events.waitUntil { !$0.fixes.isEmpty }
            let (wakeups, fixes) = (source.statistics.wakeups, source.statistics.fixes)
            await events.waitUntil { $0.fixes.count >= fixes + 5 }
            let woke = source.statistics.wakeups - wakeups
            let delivered = source.statistics.fixes - fixes
            // A fix a second: a thread that looked every 20 ms would have woken about 50 times a fix.
            #expect(woke <= 3 * delivered, "\(woke) wake-ups for \(delivered) fixes")
        }
    }

    @Test("the source's run() is its lifetime: cancelled mid-run, GeoClue's client stops and run() returns; nothing is reported after")
    func lifetimeEndsTheRun() async throws {
        try await Self.withBed(runsSource: false) { bed, source, events in
            let lifetime = Task { await source.run() }
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            await events.waitUntil { !$0.fixes.isEmpty }
            try await bed.waitFor("GeoClue in use") { Self.inUse(bed) == true }
            lifetime.cancel()
            await lifetime.value
            let reported = events.value.fixes.count
            try await bed.waitFor("GeoClue no longer in use") { Self.inUse(bed) == false }
            #expect(events.value.fixes.count == reported && events.value.fatalErrors.isEmpty)
            // After a run has ended, a start waits for the next run, then is served.
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            let again = Task { await source.run() }
            defer { again.cancel() }
            await events.waitUntil { $0.fixes.count > reported }
            #expect(source.statistics.clientStarts == 2)
        }
    }

    @Test("a start before the run has begun is served at once (a busy program may take its time to begin the run); the run then ends it")
    func startBeforeTheRun() async throws {
        try await Self.withBed(runsSource: false) { bed, source, events in
            source.start(mode: .best, events: RecordedEvents.sink(into: events))
            await events.waitUntil { !$0.fixes.isEmpty }
            let lifetime = Task { await source.run() }
            lifetime.cancel()
            await lifetime.value
            try await bed.waitFor("GeoClue no longer in use") { Self.inUse(bed) == false }
            #expect(source.statistics.clientStarts == 1 && events.value.fatalErrors.isEmpty)
        }
    }
}
