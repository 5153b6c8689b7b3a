import Testing
@testable import LocationEngine

/// Time in the plan, on virtual time: a source that says how soon it answers in each mode is run so that
/// waiting one-shots get a first fix soon, and judged by what it delivers — a mode that stays silent is passed
/// over, and beside it another source starts at once; a one-shot that ends without what it asked says why; a
/// coarse fix from another source does not make the position jump.
@Suite("Answers in time: the planner weighs when each source answers")
struct AnswersInTimeTests {
    /// GeoClue on a machine whose only source is NMEA, as the engine sees it: it says it answers within 2 s at
    /// every level, reaches 1 km, and costs little.
    static let geoclue = SourceCapabilities(
        providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.02),
        firstFixByMode: Dictionary(uniqueKeysWithValues: PowerMode.allCases.map { ($0, Duration.seconds(2)) }))
    static let gnss = SourceCapabilities(providesCourse: true, powerProfile: .mt3339, firstFixTime: .seconds(5))

    static func commands(_ h: MachineHarness, of source: Int) -> [MachineHarness.SourceCommand] {
        h.allSourceCommands.filter { $0.source == source }.map(\.command)
    }

    @Test("a level that stays silent past twice its first-fix time is passed over for the finest not known silent; the request succeeds there, and the silence is remembered")
    func silentLevelEscalates() {
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.geoclue])
        h.oneShot("city", .city, timeout: .seconds(30))
        #expect(h.sourceCommands == [.start(.lowest)])
        h.advance(by: .milliseconds(3999))
        #expect(h.sourceCommands == [.start(.lowest)], "still within its window (twice 2 s)")
        h.advance(by: .milliseconds(1))
        #expect(h.sourceCommands == [.start(.lowest), .setMode(.best)], "silent at city: exact at once, not level by level")
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 7.5))
        #expect(h.onlyResult("city")?.status == .success)
        let delivery = h.machine.statistics(now: h.now).delivery[0]
        #expect(delivery[.lowest] == SchedulerStatistics.ModeDelivery(runs: 1, answered: 0, silences: 1, isSilent: true))
        #expect(delivery[.best]?.answered == 1 && delivery[.best]?.firstFixTime == .zero && delivery[.best]?.accuracy == 7.5)
        // Ten minutes on, the silence's memory has lapsed: the city level is tried again.
        h.advance(by: .seconds(700))
        h.oneShot("later", .city, timeout: .seconds(30))
        #expect(h.sourceCommands.last == .start(.lowest))
    }

    @Test("a subscription left on a level that stays silent once a finer request ends is not left without fixes: the change to its level is judged like a start, and the level that answers runs")
    func aSilentLevelLeftToASubscriptionIsPassedOver() {
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.geoclue])
        h.subscribe("city updates", SubscriptionOptions(accuracy: .city))
        h.oneShot("exact", .house, timeout: .seconds(30))
        #expect(h.sourceCommands == [.start(.lowest), .setMode(.high)])
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 7.5))
        #expect(h.onlyResult("exact")?.status == .success)
        #expect(h.sourceCommands == [.start(.lowest), .setMode(.high), .setMode(.lowest)], "answered: the subscription's level")
        h.advance(by: .milliseconds(3999))
        #expect(h.sourceCommands.count == 3, "still within its window (twice 2 s)")
        h.advance(by: .milliseconds(1))
        #expect(h.sourceCommands == [.start(.lowest), .setMode(.high), .setMode(.lowest), .setMode(.best)], "silent at city: exact")
        h.fix(Location(latitude: 48.001, longitude: 11, horizontalAccuracy: 7.5))
        #expect(h.deliveredAccuracies("city updates") == [7.5, 7.5])
        let delivery = h.machine.statistics(now: h.now).delivery[0]
        // Its start's run ended unjudged at the change to the one-shot's level; the change back is judged.
        #expect(delivery[.lowest] == SchedulerStatistics.ModeDelivery(runs: 2, answered: 0, silences: 1, isSilent: true))
    }

    @Test("under reduced accuracy a capped level that stays silent is passed over too: the cap saves power, it does not hold the source where it never answers")
    func aSilentCapIsPassedOver() {
        var h = MachineHarness(accuracy: .reduced, powerDown: .fixedLinger, sources: [Self.geoclue])
        h.oneShot("city", .city, timeout: .seconds(30))
        #expect(h.sourceCommands == [.start(.lowest)], "coarsened anyway: the cheapest mode")
        h.advance(by: .seconds(4))
        #expect(h.sourceCommands == [.start(.lowest), .setMode(.best)], "silent at the cap: the level that answers")
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 7.5))
        #expect(h.onlyResult("city")?.status == .success)
        // Within the silence's memory the next request runs where the source answers.
        h.advance(by: .seconds(60))
        h.subscribe("significant", SubscriptionOptions(kind: .significantChange))
        #expect(h.sourceCommands.last == .start(.best))
    }

    @Test("under reduced accuracy a one-shot that waits runs the cheapest mode expected to answer in time, as at full accuracy; a subscription alone runs at the cap")
    func aSlowCapYieldsToAWaitingOneShot() {
        let periodic = SourceCapabilities(
            providesCourse: true,
            firstFixByMode: [.lowest: .seconds(20), .low: .seconds(12), .medium: .seconds(2), .high: .milliseconds(2500), .best: .seconds(3)])
        var h = MachineHarness(accuracy: .reduced, powerDown: .fixedLinger, sources: [periodic])
        h.subscribe("coarse", SubscriptionOptions(kind: .significantChange))
        #expect(h.sourceCommands == [.start(.lowest)], "nothing waits: the cap")
        h.oneShot("city", .city, timeout: .seconds(30))
        #expect(h.sourceCommands == [.start(.lowest), .setMode(.medium)], "its lowest mode answers in 20 s, its medium one in 2 s")
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 30))
        #expect(h.onlyResult("city")?.status == .success)
        #expect(h.sourceCommands.last == .setMode(.lowest), "answered: back to the cap")
    }

    @Test("within the silence's memory, a request at the silent level runs the finest level at once")
    func rememberedSilence() {
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.geoclue])
        h.oneShot("city", .city, timeout: .seconds(30))
        h.advance(by: .seconds(4))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 7.5))
        #expect(h.sourceCommands == [.start(.lowest), .setMode(.best), .stop])
        h.advance(by: .seconds(60))
        h.subscribe("significant", SubscriptionOptions(kind: .significantChange))
        #expect(h.sourceCommands.last == .start(.best), "a subscription at the silent level runs at the level that answers")
    }

    @Test("while a one-shot waits the source runs the cheapest mode expected to answer within 5 s (or a second of the quickest); once it is answered, the cheapest mode that serves what stays")
    func quickFirstFix() {
        // A receiver whose periodic modes sleep first: its lowest mode answers after 20 s, its medium mode in 2 s.
        let periodic = SourceCapabilities(
            providesCourse: true,
            firstFixByMode: [.lowest: .seconds(20), .low: .seconds(12), .medium: .seconds(2), .high: .milliseconds(2500), .best: .seconds(3)])
        var h = MachineHarness(powerDown: .fixedLinger, sources: [periodic])
        h.subscribe("coarse", SubscriptionOptions(kind: .significantChange))
        #expect(h.sourceCommands == [.start(.lowest)], "no one-shot waits: the cheapest mode")
        h.oneShot("city", .city, timeout: .seconds(10))
        #expect(h.sourceCommands == [.start(.lowest), .setMode(.medium)], "a city one-shot is not answered later than a block one would be")
        h.advance(by: .seconds(2))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 30))
        #expect(h.onlyResult("city")?.status == .success)
        #expect(h.sourceCommands == [.start(.lowest), .setMode(.medium), .setMode(.lowest)], "back to the cheapest once it is answered")
    }

    @Test("what a mode delivered replaces what the source declared: a mode that answered slowly is passed over while one-shots wait")
    func deliveredReplacesDeclared() {
        let source = SourceCapabilities(providesCourse: true, firstFixByMode: [.lowest: .seconds(4), .medium: .seconds(2)])
        var h = MachineHarness(powerDown: .fixedLinger, sources: [source])
        h.oneShot("first", .city, timeout: .seconds(30))
        #expect(h.sourceCommands == [.start(.lowest)], "declared to answer in 4 s: fast enough")
        h.advance(by: .seconds(7))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 1500))
        #expect(h.onlyResult("first")?.status == .success)
        #expect(h.machine.statistics(now: h.now).delivery[0][.lowest]?.firstFixTime == .seconds(7))
        h.advance(by: .seconds(3600))
        h.oneShot("second", .city, timeout: .seconds(30))
        #expect(h.sourceCommands.last == .start(.medium), "it took 7 s: the medium mode, declared at 2 s, answers sooner")
    }

    @Test("a source that declares no first-fix times is never judged: it runs as demanded however long it stays silent")
    func undeclaredIsNotJudged() {
        var h = MachineHarness(powerDown: .fixedLinger)
        h.oneShot("city", .city, timeout: .seconds(120))
        h.advance(by: .seconds(100))
        #expect(h.sourceCommands == [.start(.lowest)])
        #expect(h.machine.statistics(now: h.now).delivery == [[:]])
    }

    @Test("a receiver's restart is not silence: the window counts from when it can fix (its cold start the first time)")
    func restartIsNotSilence() {
        var receiver = Self.gnss
        receiver.firstFixByMode = [.high: .seconds(2)]
        var h = MachineHarness(powerDown: .fixedLinger, sources: [receiver])
        h.oneShot("house", .house, timeout: .seconds(120))
        h.advance(by: .seconds(8))
        #expect(h.sourceCommands == [.start(.high)], "5 s of cold start and 4 s of window have not passed")
        h.advance(by: .seconds(1))
        #expect(h.sourceCommands == [.start(.high), .setMode(.best)])
    }

    @Test("a restart still under way is not silence through a coarser mode and back: the finer mode's window counts from the restart's end")
    func restartIsNotSilenceThroughACoarserMode() {
        var delivery = SourceDelivery(capabilities: SourceCapabilities(
            providesCourse: true, firstFixByMode: [.medium: .seconds(2), .high: .seconds(2), .best: .seconds(2)]))
        let at = { (seconds: Int64) in EngineInstant(.seconds(seconds)) }
        delivery.started(.high, now: at(0), restart: .seconds(30))
        #expect(delivery.nextWakeup == at(34), "30 s of restart, then twice 2 s")
        delivery.changed(to: .medium, now: at(1))
        #expect(delivery.nextWakeup == at(34), "a coarser mode is judged from the restart's end too")
        delivery.changed(to: .best, now: at(2))
        #expect(delivery.nextWakeup == at(34), "the restart goes on")
        let silenced = delivery.look(now: at(10))
        #expect(!silenced, "no silence during the restart")
        // A fix shows the restart over, whatever was expected of it: the next finer mode is judged from its change.
        delivery.fixArrived(in: .best, accuracy: 5, now: at(12))
        delivery.changed(to: .medium, now: at(13))
        #expect(delivery.nextWakeup == at(17), "the coarser mode's own window, from its change")
        delivery.changed(to: .best, now: at(14))
        #expect(delivery.nextWakeup == at(18))
        delivery.stopped()
        delivery.started(.high, now: at(100), restart: .zero)
        delivery.changed(to: .best, now: at(101))
        #expect(delivery.nextWakeup == at(105), "a start without a restart: the window from the change")
    }

    @Test("a change to a coarser mode is judged against the cadence the receiver keeps through it: twice the interval between its last two fixes, when longer than the mode's window")
    func aCoarserModeIsJudgedAgainstTheCadenceKept() {
        var delivery = SourceDelivery(capabilities: SourceCapabilities(
            providesCourse: true, firstFixByMode: [.lowest: .seconds(2), .best: .seconds(2)]))
        let at = { (seconds: Int64) in EngineInstant(.seconds(seconds)) }
        delivery.started(.best, now: at(0), restart: .zero)
        delivery.fixArrived(in: .best, accuracy: 3, now: at(1))
        delivery.fixArrived(in: .best, accuracy: 3, now: at(11))
        delivery.changed(to: .lowest, now: at(12))
        #expect(delivery.nextWakeup == at(32), "a fix every 10 s: 20 s, not the mode's 4")
        delivery.changed(to: .best, now: at(13))
        #expect(delivery.nextWakeup == at(17), "a finer mode: its own window")
    }

    @Test("a receiver off for hours restarts warm: its window counts from the warm start, not a hot one, under either power-down rule")
    func restartAfterHoursIsWarm() {
        for rule in [PowerDownRule.fixedLinger, .restartAware] {
            var receiver = Self.gnss
            receiver.firstFixByMode = [.high: .seconds(2)]
            var h = MachineHarness(powerDown: rule, sources: [receiver])
            h.oneShot("first", .house, timeout: .seconds(120))
            h.advance(by: .seconds(6))
            h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 5))
            #expect(h.onlyResult("first")?.status == .success)
            h.advance(by: .seconds(120))  // past the linger, or the restart-aware plan's step down
            h.advance(by: .seconds(3 * 3600))  // beyond the ephemerides' 2 h: a warm start of 33 s
            #expect(h.sourceCommands.last == .stop || h.sourceCommands.last == .idle(.off), "\(rule): \(h.sourceCommands)")
            let before = h.sourceCommands.count
            h.oneShot("later", .house, timeout: .seconds(120))
            #expect(h.sourceCommands.count == before + 1, "\(rule): started")
            h.advance(by: .seconds(36))
            #expect(h.sourceCommands.count == before + 1, "\(rule): 33 s of warm start and 4 s of window have not passed: \(h.sourceCommands)")
            h.advance(by: .seconds(1))
            #expect(h.sourceCommands.last == .setMode(.best), "\(rule): \(h.sourceCommands)")
        }
    }

    @Test("GeoClue beside a GNSS: a city request runs GeoClue alone; when its level stays silent the GNSS starts at once, not after the blind fallback, and whichever answers first answers")
    func silentSourceFallsBackAtOnce() {
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.gnss, Self.geoclue], fallbackAfter: .seconds(30))
        h.oneShot("city", .city, timeout: .seconds(30))
        #expect(Self.commands(h, of: 1) == [.start(.lowest)] && Self.commands(h, of: 0).isEmpty)
        h.advance(by: .seconds(4))
        #expect(Self.commands(h, of: 1) == [.start(.lowest), .setMode(.best)], "GeoClue goes to exact")
        #expect(Self.commands(h, of: 0) == [.start(.lowest)], "and the GNSS starts beside it, in the mode its reach suits")
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 7.5), source: 1)
        #expect(h.onlyResult("city")?.status == .success)
        #expect(Self.commands(h, of: 0) == [.start(.lowest), .stop], "GeoClue answered: the fallback ends")
    }

    @Test("a source that answered and then stays silent in the mode a new request asks has the fallback start at once, not a blind 30 s after its last fix")
    func silenceAfterAFixFallsBackAtOnce() {
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.gnss, Self.geoclue], fallbackAfter: .seconds(30))
        h.subscribe("city updates", SubscriptionOptions(accuracy: .city))
        h.advance(by: .seconds(1))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 1_500), source: 1)
        h.advance(by: .seconds(1))
        h.oneShot("neighbourhood", .neighborhood, timeout: .seconds(60))
        #expect(Self.commands(h, of: 1) == [.start(.lowest), .setMode(.low)] && Self.commands(h, of: 0).isEmpty, "\(h.allSourceCommands)")
        h.advance(by: .seconds(3))
        #expect(Self.commands(h, of: 0).isEmpty, "within the mode's window of 4 s")
        h.advance(by: .seconds(1))
        #expect(Self.commands(h, of: 0).first.map { if case .start = $0 { true } else { false } } == true, "the GNSS starts beside it")
    }

    @Test("a one-shot that times out says why: no fix yet, the source's error, the source acquiring, or fixes short of the accuracy")
    func reasons() {
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.gnss])
        h.oneShot("acquiring", .house, timeout: .seconds(10))
        h.advance(by: .seconds(10))
        #expect(h.onlyResult("acquiring")?.reason == .acquiring(for: .seconds(10)))
        #expect(h.onlyResult("acquiring")?.reason?.code == "acquiring")
        h.oneShot("error", .house, timeout: .seconds(10))
        h.transientError("geoclue.agent")
        h.advance(by: .seconds(10))
        #expect(h.onlyResult("error")?.reason == EndingReason(code: "geoclue.agent", message: "scripted"))
        h.oneShot("coarse", .room, timeout: .seconds(10))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 40))
        h.advance(by: .seconds(10))
        let reason = h.onlyResult("coarse")?.reason
        #expect(reason?.code == "accuracy_not_reached")
        #expect(reason?.message == "the best fix (±40 m, 10.0 s old) did not meet the accuracy or age asked for")
        #expect(h.onlyResult("coarse")?.location?.horizontalAccuracy == 40)
        var coarseOnly = MachineHarness(powerDown: .fixedLinger, sources: [Self.geoclue])
        coarseOnly.oneShot("room", .room, timeout: .seconds(10))
        coarseOnly.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 900))
        coarseOnly.advance(by: .seconds(10))
        #expect(coarseOnly.onlyResult("room")?.reason?.message.hasSuffix("the finest any source reaches is about 1000 m") == true)
        #expect(h.onlyResult("acquiring")?.status == .timedOut && coarseOnly.results.values.allSatisfy { $0.count == 1 })
        // A source's error since its last fix is why a finer one did not come, whatever older fix is carried.
        h.oneShot("error after a fix", .room, timeout: .seconds(10))
        h.transientError("gpsd.unreachable")
        h.advance(by: .seconds(10))
        let afterAFix = h.onlyResult("error after a fix")
        #expect(afterAFix?.reason == EndingReason(code: "gpsd.unreachable", message: "scripted"), "\(String(describing: afterAFix))")
        #expect(afterAFix?.location?.horizontalAccuracy == 40, "the older fix is carried still")
    }

    @Test("the error of a source that stopped since (the demand moved to another) is not why a one-shot timed out: the fixes short of its accuracy are")
    func staleErrorOfAStoppedSource() {
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.gnss, Self.geoclue])
        h.oneShot("city", .city, timeout: .seconds(60))
        h.transientError("geoclue.agent", source: 1)
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 900), source: 1)
        #expect(h.onlyResult("city")?.status == .success)
        // Reported as the coarse source stops: kept as its last error.
        h.transientError("geoclue.agent", source: 1)
        h.oneShot("room", .room, timeout: .seconds(10))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 30), source: 0)
        h.advance(by: .seconds(10))
        let room = h.onlyResult("room")
        #expect(room?.reason?.code == "accuracy_not_reached", "\(String(describing: room))")
    }

    @Test("a fix whose accuracy, or a source whose reach, is finite but absurd is reported in words when a one-shot times out, not converted into an integer it does not fit")
    func absurdFiguresInReasons() {
        let vast = SourceCapabilities(providesCourse: false, reach: 1e300, cost: SourceCost(watts: 0.02), firstFixTime: .seconds(2))
        var h = MachineHarness(powerDown: .fixedLinger, sources: [vast])
        h.oneShot("room", .room, timeout: .seconds(10))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 1e19))
        h.advance(by: .seconds(10))
        let reason = h.onlyResult("room")?.reason
        #expect(reason?.code == "accuracy_not_reached")
        #expect(
            reason?.message
                == "the best fix (±over 1,000,000 km, 10.0 s old) did not meet the accuracy or age asked for; the finest any source reaches is about over 1,000,000 km")
        #expect(h.machine.whyNoAnswer(now: h.now).message == reason?.message, "asked with no request waiting, the same words")
        // The figures a reason is built from are public: the bounds hold there too.
        let far = EndingReason.accuracyNotReached(
            best: Location(latitude: 0, longitude: 0, horizontalAccuracy: .greatestFiniteMagnitude), age: .seconds(Int64.max), finestReach: 5e8)
        #expect(far.message == "the best fix (±over 1,000,000 km, over a million years old) did not meet the accuracy or age asked for; the finest any source reaches is about 500000000 m")
        #expect(EndingReason.acquiring(for: .seconds(Int64.max)).message.hasPrefix("the source started over a million years ago"))
    }

    /// A receiver and a coarse source, a subscription "all", and a fix of `metres` from the receiver.
    private static func subscribedAfterAPreciseFix(metres: Double) -> (MachineHarness, Location) {
        var h = MachineHarness(powerDown: .fixedLinger, sources: [gnss, geoclue])
        h.subscribe("all", SubscriptionOptions())
        let precise = Location(latitude: 52.52, longitude: 13.405, horizontalAccuracy: metres)
        h.fix(precise, source: 0)
        return (h, precise)
    }

    @Test("one position, no jumps: a coarse fix whose circle holds a fresh precise one is kept out and counted; one that excludes it replaces it")
    func supersedeRule() {
        var (h, precise) = Self.subscribedAfterAPreciseFix(metres: 2.3)
        h.advance(by: .milliseconds(500))
        // 92 m away, ±1 km: it says nothing the precise fix does not (GeoClue's rule; the old rule let it jump).
        let near = Location(latitude: 52.52 + 92 / 111_195, longitude: 13.405, horizontalAccuracy: 1000)
        #expect((near.distance(to: precise) - 92).magnitude < 1)
        h.fix(near, source: 1)
        // Counted as superseded only: not also as a dropped fix.
        #expect(h.fixesProcessed == [true] && h.machine.statistics(now: h.now).fixesSuperseded == 1)
        #expect(h.machine.lastKnownLocation(now: h.now)?.location == precise)
        // 3 km away, ±1 km: the precise fix lies outside its circle, so it is news.
        let far = Location(latitude: 52.52 + 3000 / 111_195, longitude: 13.405, horizontalAccuracy: 1000)
        h.fix(far, source: 1)
        #expect(h.fixesProcessed == [true, true] && h.machine.lastKnownLocation(now: h.now)?.location == far)
    }

    @Test("a fix kept out by a precise one still answers a one-shot the precise one has grown too old for: it does not time out beside fresh fixes that meet it")
    func aSupersededFixAnswersAOneShotTheLatestIsTooOldFor() {
        var (h, precise) = Self.subscribedAfterAPreciseFix(metres: 3)
        h.advance(by: .seconds(5))
        // 2 km, but no older than 3 s: the precise fix, 5 s old, is too old.
        h.oneShot("fresh", .custom(metres: 2000, maximumAge: .seconds(3)), timeout: .seconds(20))
        #expect(h.results["fresh"] == nil)
        h.advance(by: .seconds(1))
        let coarse = Location(latitude: 52.52 + 100 / 111_195, longitude: 13.405, horizontalAccuracy: 1000)
        h.fix(coarse, source: 1)
        #expect(h.onlyResult("fresh")?.status == .success && h.onlyResult("fresh")?.location == coarse)
        // Still kept out of the position and the subscriptions.
        #expect(h.machine.statistics(now: h.now).fixesSuperseded == 1)
        #expect(h.machine.lastKnownLocation(now: h.now)?.location == precise)
        #expect(h.deliveredAccuracies("all") == [3])
    }

    @Test("a city request beside a house request does not wait out the receiver's cold start: the coarse source, quicker, answers it; a receiver that starts hot has no spare beside it")
    func aCoarseRequestIsAnsweredWhileTheReceiverAcquires() {
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.gnss, Self.geoclue])
        h.oneShot("house", .house, timeout: .seconds(120))
        h.advance(by: .seconds(1))
        h.oneShot("city", .city, timeout: .seconds(30))
        #expect(Self.commands(h, of: 1) == [.start(.lowest)])
        h.advance(by: .seconds(2))
        h.fix(Location(latitude: 52.52, longitude: 13.405, horizontalAccuracy: 800), source: 1)
        #expect(h.onlyResult("city")?.status == .success && h.results["house"] == nil)
        // Its request answered, the coarse source stops; the receiver goes on for the house request.
        #expect(Self.commands(h, of: 1) == [.start(.lowest), .stop])
    }
}
