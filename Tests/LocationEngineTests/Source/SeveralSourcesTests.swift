import Testing
@testable import LocationEngine

/// The core with several sources, on virtual time: which source runs for what is asked, the choice
/// recomputed as requests come and go, the fusion rule, fallback while the precise source hears nothing,
/// and failover when one fails for good.
@Suite("Several sources: chosen by what the requests need")
struct SeveralSourcesTests {
    /// Source 0: a GNSS receiver (reaches any accuracy, costs its tracking power, first fix within 5 s here);
    /// source 1: a coarse network source (reaches 1 km, costs a few milliwatts).
    static let gnss = SourceCapabilities(providesCourse: true, powerProfile: .mt3339, firstFixTime: .seconds(5))
    static let coarse = SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.005))

    static func harness(fallbackAfter: Duration = .seconds(30)) -> MachineHarness {
        MachineHarness(powerDown: .fixedLinger, sources: [gnss, coarse], fallbackAfter: fallbackAfter)
    }

    static func commands(_ h: MachineHarness, of source: Int) -> [MachineHarness.SourceCommand] {
        h.allSourceCommands.filter { $0.source == source }.map(\.command)
    }

    @Test("a source whose reach depends on its mode serves what it reaches in each: street-level Wi-Fi serves a block request, never a house request")
    func reachByMode() {
        let wifi = SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.02), reachByMode: [.medium: 40])
        #expect(wifi.serves(.medium) && wifi.serves(.low) && !wifi.serves(.high) && wifi.reach(in: .medium) == 40 && wifi.reach(in: .low) == 1000)
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.gnss, wifi])
        h.oneShot("block", .block, timeout: .seconds(60))
        #expect(Self.commands(h, of: 1) == [.start(.medium)] && Self.commands(h, of: 0).isEmpty)
        h.oneShot("house", .house, timeout: .seconds(60))
        #expect(Self.commands(h, of: 0) == [.start(.high)])
        // The GNSS fails: the house request ends, the block request goes back to the Wi-Fi source.
        h.fatalError("gnss.gone", source: 0)
        #expect(h.onlyResult("house")?.status == .failed(SourceError(code: "gnss.gone", message: "scripted")))
        #expect(h.results["block"] == nil && Self.commands(h, of: 1).last == .start(.medium))
    }

    @Test("a heading subscription is refused only when no source reports course: with a coarse source first and a GNSS beside it, the GNSS runs for it and its course arrives")
    func headingFromAnySourceWithCourse() {
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.coarse, Self.gnss])
        h.subscribe("heading", SubscriptionOptions(kind: .heading))
        #expect(h.ends("heading").isEmpty)
        #expect(Self.commands(h, of: 1).first.map { if case .start = $0 { true } else { false } } == true)
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 5, course: 90), source: 1)
        #expect(h.events["heading"]?.isEmpty == false)
        var coarseOnly = MachineHarness(powerDown: .fixedLinger, sources: [Self.coarse, Self.coarse])
        coarseOnly.subscribe("heading", SubscriptionOptions(kind: .heading))
        #expect(coarseOnly.ends("heading") == [.headingUnavailable])
    }

    @Test("a course on a fix kept out of the position (a more accurate fix of another source beside it) still reaches heading subscriptions, and nothing else")
    func supersededCourseReachesHeadings() {
        let wifi = SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.02), reachByMode: [.medium: 40])
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.gnss, wifi])
        h.subscribe("heading", SubscriptionOptions(kind: .heading, maximumUpdates: 1))
        h.subscribe("updates")
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 40), source: 1)
        h.advance(by: .seconds(1))
        // Less accurate, inside the Wi-Fi fix's circle, within the superseding window: kept out of the position.
        h.fix(Location(latitude: 48.0001, longitude: 11, horizontalAccuracy: 60, course: 90), source: 0)
        #expect(h.machine.statistics(now: h.now).fixesSuperseded == 1)
        #expect(h.events["heading"]?.contains { if case .heading(let update) = $0 { update.course == 90 } else { false } } == true)
        #expect(h.ends("heading") == [.maximumUpdatesReached])
        #expect(h.deliveredAccuracies("updates") == [40], "the position's subscribers hear the more accurate fix only")
    }

    @Test("a significant-change subscription filtering for block accuracy runs a source that reaches it, not the cheapest one that never would")
    func significantChangeWithAnAccuracyFilter() {
        var h = Self.harness()
        h.subscribe("significant", SubscriptionOptions(kind: .significantChange, accuracy: .block))
        #expect(Self.commands(h, of: 0) == [.start(.medium)] && Self.commands(h, of: 1).isEmpty)
        var plain = Self.harness()
        plain.subscribe("significant", SubscriptionOptions(kind: .significantChange))
        #expect(Self.commands(plain, of: 1) == [.start(.lowest)] && Self.commands(plain, of: 0).isEmpty)
    }

    @Test("a heading subscription at a coarse accuracy runs the source that gives the course, not a cheaper one without it; its course arrives")
    func coarseHeadingRunsTheCourseSource() {
        var h = Self.harness()
        h.subscribe("heading", SubscriptionOptions(kind: .heading, accuracy: .neighborhood))
        #expect(Self.commands(h, of: 0) == [.start(.low)] && Self.commands(h, of: 1).isEmpty)
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 5, course: 90), source: 0)
        #expect(h.events["heading"]?.count == 1)
        // A city subscription beside it is served by the same source; once the heading subscription ends, the
        // cheaper source is chosen.
        h.subscribe("city", SubscriptionOptions(accuracy: .city))
        #expect(Self.commands(h, of: 1).isEmpty)
        h.cancel("heading")
        #expect(Self.commands(h, of: 1) == [.start(.lowest)], "\(h.allSourceCommands)")
    }

    @Test("when the only source that gives the course fails, heading subscriptions end with its error; the others go on with the source left")
    func courseSourceFails() {
        var h = Self.harness()
        h.subscribe("heading", SubscriptionOptions(kind: .heading, accuracy: .city))
        h.subscribe("city", SubscriptionOptions(accuracy: .city))
        h.fatalError("gnss.gone", source: 0)
        #expect(h.ends("heading") == [.failed(SourceError(code: "gnss.gone", message: "scripted"))])
        #expect(h.ends("city").isEmpty && Self.commands(h, of: 1) == [.start(.lowest)], "\(h.allSourceCommands)")
    }

    @Test("a heading subscription made once the only source that gives the course has failed tries that source again, and ends with its error if it fails again")
    func headingAfterTheCourseSourceFailed() {
        var h = Self.harness()
        h.subscribe("city", SubscriptionOptions(accuracy: .city))
        h.subscribe("first heading", SubscriptionOptions(kind: .heading, accuracy: .city))
        h.fatalError("gnss.gone", source: 0)
        #expect(h.ends("first heading") == [.failed(SourceError(code: "gnss.gone", message: "scripted"))])
        let startsBefore = Self.commands(h, of: 0).filter { if case .start = $0 { true } else { false } }.count
        h.subscribe("heading", SubscriptionOptions(kind: .heading, accuracy: .city))
        let starts = Self.commands(h, of: 0).filter { if case .start = $0 { true } else { false } }.count
        #expect(starts == startsBefore + 1, "the GNSS is tried again: \(h.allSourceCommands)")
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 5, course: 90), source: 0)
        #expect(h.events["heading"]?.contains { if case .heading = $0 { true } else { false } } == true)
        h.fatalError("gnss.gone", source: 0)
        #expect(h.ends("heading") == [.failed(SourceError(code: "gnss.gone", message: "scripted"))] && h.ends("city").isEmpty)
    }

    @Test("between two sources alike in cost the quicker to a first fix runs")
    func quickerFirstFix() {
        let slow = SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.01), firstFixTime: .seconds(20))
        let quick = SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.01), firstFixTime: .seconds(2))
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.gnss, slow, quick])
        h.oneShot("city", .city, timeout: .seconds(60))
        #expect(h.allSourceCommands.map(\.source) == [2])
        #expect(Self.gnss.firstFixTime == .seconds(5) && SourceCapabilities(providesCourse: true, powerProfile: .mt3339).firstFixTime == .seconds(35))
    }

    @Test("a source serves a mode when its reach is within the mode's accuracy; the best mode asks for GNSS-class reach")
    func serving() {
        #expect(Self.coarse.serves(.lowest) && Self.coarse.serves(.low))
        #expect(!Self.coarse.serves(.medium) && !Self.coarse.serves(.high) && !Self.coarse.serves(.best))
        #expect(PowerMode.allCases.allSatisfy { Self.gnss.serves($0) })
        #expect(Self.coarse.cost < Self.gnss.cost, "by default a receiver costs its tracking power")
    }

    @Test("a city request runs only the coarse source; a house request then runs the GNSS, the coarse source beside it only until the GNSS's first fix; its end gives the city request back to the coarse source")
    func choiceFollowsTheFinestRequest() {
        var h = Self.harness()
        h.oneShot("city", .city, timeout: .seconds(120))
        #expect(Self.commands(h, of: 1) == [.start(.lowest)])
        #expect(Self.commands(h, of: 0).isEmpty, "a request the coarse source can serve never wakes the GNSS")
        h.oneShot("house", .house, timeout: .seconds(120))
        #expect(Self.commands(h, of: 0) == [.start(.high)])
        // The GNSS starts cold (35 s): the coarse source, quicker, goes on serving the city request meanwhile.
        #expect(Self.commands(h, of: 1) == [.start(.lowest)], "the coarse source answers sooner than the GNSS acquires")
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 8), source: 0)
        #expect(h.onlyResult("house")?.status == .success && h.onlyResult("city")?.status == .success)
        #expect(Self.commands(h, of: 0) == [.start(.high), .stop])
        #expect(Self.commands(h, of: 1) == [.start(.lowest), .stop], "the GNSS's first fix served the city request too")
        h.advance(by: .seconds(3600))  // the cached fix too old to answer
        h.oneShot("city again", .city, timeout: .seconds(120))
        h.oneShot("block", .block, timeout: .seconds(120))
        #expect(Self.commands(h, of: 0).last == .start(.medium))
        h.cancel("block")
        #expect(Self.commands(h, of: 0).last == .stop && Self.commands(h, of: 1).last == .start(.lowest), "recomputed on removal")
        #expect(h.machine.statistics(now: h.now).sources.map(\.chosen) == [false, true])
    }

    @Test("the fusion rule: a fix from another source, less accurate and inside the latest fix's circle, does not replace it")
    func fusion() {
        var h = Self.harness()
        h.oneShot("house", .house, timeout: .seconds(120))
        h.subscribe("all", SubscriptionOptions())
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 20), source: 0)
        // The coarse source locates the same place, less accurately: dropped.
        h.fix(Location(latitude: 48.0001, longitude: 11, horizontalAccuracy: 900), source: 1)
        #expect(h.machine.statistics(now: h.now).fixesSuperseded == 1)
        #expect(h.fixesProcessed == [true], "superseded, not also dropped")
        // Out of the circle it is news; so is a less accurate fix from the same source.
        h.fix(Location(latitude: 48.01, longitude: 11, horizontalAccuracy: 900), source: 1)
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 30), source: 0)
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 40), source: 0)
        #expect(h.fixesProcessed == [true, true, true, true])
        // Once the precise fix is older than the window, a coarse fix inside its circle replaces it.
        h.advance(by: .seconds(31))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 900), source: 1)
        #expect(h.fixesProcessed.last == true)
    }

    @Test("an older, coarser fix of another source is kept out wherever it lies, and does not make the next coarse fix the latest's peer")
    func olderCoarseFix() {
        var h = Self.harness()
        h.subscribe("all", SubscriptionOptions())
        h.advance(by: .seconds(200))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 2.3), source: 0)
        // Two minutes old, 3 km away, ±1 km: it excludes the fresh fix, but was taken before it.
        h.fix(Location(latitude: 48.027, longitude: 11, horizontalAccuracy: 1_000), age: .seconds(120), source: 1)
        // A fresh coarse fix 92 m from the precise one says nothing it contradicts.
        h.advance(by: .seconds(1))
        h.fix(Location(latitude: 48.000827, longitude: 11, horizontalAccuracy: 1_000), source: 1)
        #expect(h.fixesProcessed == [true])
        #expect(h.machine.statistics(now: h.now).fixesSuperseded == 2)
        h.oneShot("house", .house, timeout: .seconds(60))
        #expect(h.onlyResult("house")?.location?.horizontalAccuracy == 2.3, "the fresh 2.3 m fix is still the one known")
    }

    @Test("indoors: the GNSS hears nothing for its first-fix time and the fallback time, the coarse source starts beside it, and the precise request times out carrying the coarse fix")
    func fallback() {
        var h = Self.harness(fallbackAfter: .seconds(30))
        h.oneShot("house", .house, timeout: .seconds(60))
        #expect(Self.commands(h, of: 0) == [.start(.high)] && Self.commands(h, of: 1).isEmpty)
        h.advance(by: .seconds(34))
        #expect(Self.commands(h, of: 1).isEmpty, "a receiver still within its first-fix time is not indoors")
        h.advance(by: .seconds(1))
        #expect(Self.commands(h, of: 1) == [.start(.low)], "started in the mode its reach suits")
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 800), source: 1)
        #expect(h.results["house"] == nil, "a coarse fix does not satisfy a house request")
        h.advance(by: .seconds(25))
        let result = h.onlyResult("house")
        #expect(result?.status == .timedOut && result?.location?.horizontalAccuracy == 800, "its best effort is the coarse fix")
        #expect(Self.commands(h, of: 0).last == .stop && Self.commands(h, of: 1).last == .stop)
    }

    @Test("a GNSS that emits only invalid fixes indoors delivers nothing: the coarse source still starts beside it")
    func invalidFixesAreNoDelivery() {
        var h = Self.harness(fallbackAfter: .seconds(30))
        h.oneShot("house", .house, timeout: .seconds(60))
        for second in 1...35 {
            h.advance(by: .seconds(1))
            let garbage = second.isMultiple(of: 2)
                ? Location(latitude: .nan, longitude: 11, horizontalAccuracy: 5)
                : Location(latitude: 48, longitude: 11, horizontalAccuracy: -1)
            h.fix(garbage, source: 0)
        }
        #expect(Self.commands(h, of: 1) == [.start(.low)], "after its first-fix time and the fallback time, as if silent")
        #expect(h.machine.statistics(now: h.now).invalidFixes == 35)
    }

    @Test("under reduced accuracy the choice is the cheapest source that serves the cap: a standard subscription and a monitor run the coarse source, not the GNSS held coarse")
    func reducedAccuracyChoosesByTheCap() {
        var h = MachineHarness(accuracy: .reduced, powerDown: .fixedLinger, sources: [Self.gnss, Self.coarse])
        h.subscribe("all", SubscriptionOptions())
        #expect(Self.commands(h, of: 1) == [.start(.lowest)] && Self.commands(h, of: 0).isEmpty, "\(h.allSourceCommands)")
        h.monitor("depot")
        #expect(h.end("depot") == nil && Self.commands(h, of: 0).isEmpty, "\(h.allSourceCommands)")
        var full = MachineHarness(powerDown: .fixedLinger, sources: [Self.gnss, Self.coarse])
        full.subscribe("all", SubscriptionOptions())
        #expect(Self.commands(full, of: 0) == [.start(.best)], "with full accuracy a standard subscription runs the GNSS")
    }

    @Test("absurd capabilities are bounded: a first-fix time of 1e20 s is a day, a profile whose power is no number costs as a typical receiver")
    func absurdCapabilities() {
        var huge = SourceCapabilities(
            providesCourse: true, powerProfile: .mt3339, firstFixTime: .seconds(1e20),
            firstFixByMode: Dictionary(uniqueKeysWithValues: PowerMode.allCases.map { ($0, Duration.seconds(1e20)) }))
        #expect(huge.firstFixTime == SourceCapabilities.longestFirstFix && huge.firstFixByMode[.best] == .seconds(86_400))
        huge.firstFixByMode[.low] = .seconds(-5)
        huge.firstFixTime = .seconds(1e20)
        #expect(huge.firstFixByMode[.low] == .zero && huge.firstFixTime == .seconds(86_400), "set later, bounded too")
        var h = MachineHarness(powerDown: .fixedLinger, sources: [huge, Self.coarse], fallbackAfter: .seconds(30))
        h.oneShot("house", .house, timeout: .seconds(60))
        h.advance(by: .seconds(60))
        #expect(h.onlyResult("house")?.status == .timedOut, "planned and timed out, no trap in the sums")
        var broken = ReceiverPowerProfile.mt3339
        broken.tracking = [.best: .infinity]
        #expect(SourceCapabilities(providesCourse: true, powerProfile: broken).cost == .typicalGNSS)
        broken.tracking = [.best: -3]
        #expect(SourceCapabilities(providesCourse: true, powerProfile: broken, reach: 50).cost == .typicalGNSS)
    }

    @Test("the fallback ends when the GNSS delivers again")
    func fallbackEnds() {
        var h = Self.harness(fallbackAfter: .seconds(10))
        h.subscribe("precise", SubscriptionOptions(accuracy: .room))
        h.advance(by: .seconds(15))
        #expect(Self.commands(h, of: 1) == [.start(.low)], "after the first-fix time and the fallback time")
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 3), source: 0)
        #expect(Self.commands(h, of: 1) == [.start(.low), .stop])
        #expect(Self.commands(h, of: 0) == [.start(.best)])
        // Silent again for the fallback time: the coarse source comes back.
        h.advance(by: .seconds(10))
        #expect(Self.commands(h, of: 1) == [.start(.low), .stop, .start(.low)])
    }

    @Test("a fallback time of zero: the coarse source starts beside the GNSS once its first-fix time has passed, and runs beside it throughout, fixes or not")
    func zeroFallbackRunsBothThroughout() {
        var h = Self.harness(fallbackAfter: .zero)
        h.subscribe("precise", SubscriptionOptions(accuracy: .room))
        h.advance(by: .seconds(4))
        #expect(Self.commands(h, of: 1).isEmpty, "a receiver within its first-fix time is not indoors")
        h.advance(by: .seconds(1))
        #expect(Self.commands(h, of: 1) == [.start(.low)])
        for _ in 0..<20 {
            h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 3), source: 0)
            h.advance(by: .seconds(1))
        }
        #expect(Self.commands(h, of: 1) == [.start(.low)], "not stopped at each GNSS fix and started again")
        #expect(Self.commands(h, of: 0) == [.start(.best)])
    }

    @Test("the GNSS fails for good: requests the coarse source can serve keep going and succeed; finer ones end with the error")
    func failover() {
        var h = Self.harness()
        h.oneShot("city", .city, timeout: .seconds(120))
        h.oneShot("house", .house, timeout: .seconds(120))
        h.subscribe("coarse updates", SubscriptionOptions(accuracy: .neighborhood))
        #expect(Self.commands(h, of: 0) == [.start(.high)])
        h.fatalError("gnss.gone", source: 0)
        #expect(h.onlyResult("house")?.status == .failed(SourceError(code: "gnss.gone", message: "scripted")))
        #expect(h.results["city"] == nil && h.ends("coarse updates").isEmpty)
        #expect(Self.commands(h, of: 0) == [.start(.high), .stop])
        // The coarse source ran for the city request, went on beside the GNSS while it acquired (for the coarse
        // subscription too), and goes on now.
        #expect(Self.commands(h, of: 1) == [.start(.lowest), .setMode(.low)])
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 700), source: 1)
        #expect(h.onlyResult("city")?.status == .success)
        // While demand lasts the failed source is not chosen again for what the coarse source serves.
        h.oneShot("city again", .city, timeout: .seconds(5))
        #expect(Self.commands(h, of: 0) == [.start(.high), .stop])
        #expect(h.machine.statistics(now: h.now).sources.map(\.failed) == [true, false])
        // A request only it serves tries it again, once (demand that never ends, as geofences', would otherwise
        // leave it waiting for ever); failing again, the GNSS ends it with its error, and is not tried in a loop.
        h.oneShot("room", .room)
        #expect(Self.commands(h, of: 0) == [.start(.high), .stop, .start(.best)])
        h.fatalError("gnss.still.gone", source: 0)
        #expect(h.onlyResult("room")?.status == .failed(SourceError(code: "gnss.still.gone", message: "scripted")))
        #expect(Self.commands(h, of: 0) == [.start(.high), .stop, .start(.best), .stop])
        h.advance(by: .seconds(5))
        #expect(Self.commands(h, of: 0).count == 4)
        // Once no request needs a source, a later one starts the GNSS afresh, and back, it serves.
        h.cancel("coarse updates")
        h.oneShot("room again", .room, timeout: .seconds(5))
        #expect(Self.commands(h, of: 0).last == .start(.best))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 3), source: 0)
        #expect(h.onlyResult("room again")?.status == .success)
    }

    @Test("a receiver restarting warm after hours off is given its restart before the fallback: the coarse source does not start while it is expected to acquire")
    func theFallbackWaitsOutARestart() {
        var h = Self.harness(fallbackAfter: .seconds(10))
        h.oneShot("house", .house, timeout: .seconds(120))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 5), source: 0)
        #expect(h.onlyResult("house")?.status == .success)
        h.advance(by: .seconds(3 * 3600))
        h.oneShot("house again", .house, timeout: .seconds(120))
        #expect(Self.commands(h, of: 0).last == .start(.high))
        h.advance(by: .seconds(25))
        #expect(Self.commands(h, of: 1).isEmpty, "the receiver is still in its warm start (about 33 s)")
        h.advance(by: .seconds(25))
        #expect(Self.commands(h, of: 1) == [.start(.low)], "silent past its restart and 10 s more: the fallback")
    }

    @Test("beside geofences (their demand never ends, their mode always the finest), a room request after the GNSS failed tries it again, once")
    func aFailedSourceIsTriedAgainBesideMonitors() {
        var h = Self.harness()
        h.monitor("depot")
        #expect(Self.commands(h, of: 0) == [.start(.best)])
        h.fatalError("gnss.gone", source: 0)
        #expect(Self.commands(h, of: 0) == [.start(.best), .stop] && Self.commands(h, of: 1).count == 1)
        h.oneShot("room", .room)
        #expect(Self.commands(h, of: 0) == [.start(.best), .stop, .start(.best)])
        h.fatalError("gnss.still.gone", source: 0)
        #expect(h.onlyResult("room")?.status == .failed(SourceError(code: "gnss.still.gone", message: "scripted")))
        h.advance(by: .seconds(60))
        #expect(Self.commands(h, of: 0).count == 4, "not tried in a loop")
    }

    @Test("the spare beside an acquiring receiver is judged by its slowest declared first fix, and the receiver's next start by its restart: a hot restart has nothing beside it")
    func aHotRestartHasNoSpareBesideIt() {
        let geoclue = SourceCapabilities(
            providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.02),
            firstFixByMode: Dictionary(uniqueKeysWithValues: PowerMode.allCases.map { ($0, Duration.seconds(2)) }))
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.gnss, geoclue])
        h.oneShot("house", .house, timeout: .seconds(120))
        h.oneShot("city", .city, timeout: .seconds(30))
        #expect(Self.commands(h, of: 1) == [.start(.lowest)], "beside the receiver's cold start")
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 5), source: 0)
        #expect(Self.commands(h, of: 1) == [.start(.lowest), .stop])
        h.advance(by: .seconds(600))
        h.oneShot("house again", .house, timeout: .seconds(120))
        h.oneShot("city again", .custom(metres: 1000, maximumAge: .seconds(1)), timeout: .seconds(30))
        #expect(Self.commands(h, of: 0).last == .start(.high))
        #expect(Self.commands(h, of: 1) == [.start(.lowest), .stop], "a hot restart (1 s) is quicker than GeoClue's 2 s")
    }

    @Test("indoors, the fallback runs as fine as it reaches for the finer request, whatever coarse request is beside it")
    func theSilenceFallbackRunsAsFineAsItReaches() {
        let wifi = SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.02), reachByMode: [.medium: 40])
        var h = MachineHarness(powerDown: .fixedLinger, sources: [Self.gnss, wifi], fallbackAfter: .seconds(10))
        h.oneShot("house", .house, timeout: .seconds(600))
        h.subscribe("city", SubscriptionOptions(accuracy: .city))
        #expect(Self.commands(h, of: 1) == [.start(.lowest)], "beside the receiver's cold start, for the city subscription")
        h.advance(by: .seconds(20))
        #expect(Self.commands(h, of: 1) == [.start(.lowest), .setMode(.medium)], "silent past its cold start and 10 s: as fine as it reaches")
    }

    /// What an event's effects did, in order: the one-shots they ended and the source commands.
    static func endingsAndCommands(_ effects: MachineHarness.Machine.Effects) -> [String] {
        effects.actions.compactMap { action -> String? in
            switch action {
            case .completeOneShots(let recipients, _): "end " + recipients.map(\.handler).joined(separator: ",")
            case .startSource(let source, let mode): "start \(source.index) \(mode)"
            case .setSourceMode(let source, let mode): "mode \(source.index) \(mode)"
            case .stopSource(let source): "stop \(source.index)"
            case .idleSource(let source, _): "idle \(source.index)"
            default: nil
            }
        }
    }

    @Test("a source failing for good, and a shutdown: each source commanded once, ahead of the endings")
    func powerDownIsSettled() {
        var h = Self.harness()
        h.oneShot("city", .city, timeout: .seconds(120))
        h.oneShot("house", .house, timeout: .seconds(120))
        #expect(Self.commands(h, of: 1) == [.start(.lowest)], "beside the GNSS while it acquires")
        let failure = h.machine.receiveFatalError(SourceError(code: "gnss.gone", message: "scripted"), now: h.now, source: SourceID(0))
        #expect(Self.endingsAndCommands(failure) == ["stop 0", "end house"])
        let shutdown = h.machine.shutdown(now: h.now)
        #expect(Self.endingsAndCommands(shutdown) == ["stop 1", "end city"])
    }

    @Test("both sources fail: every request still admitted ends with the error")
    func bothFail() {
        var h = Self.harness()
        h.oneShot("city", .city, timeout: .seconds(120))
        h.fatalError("coarse.gone", source: 1)
        #expect(h.results["city"] == nil, "the GNSS can still serve it")
        #expect(Self.commands(h, of: 0) == [.start(.lowest)])
        h.fatalError("gnss.gone", source: 0)
        #expect(h.onlyResult("city")?.status == .failed(SourceError(code: "gnss.gone", message: "scripted")))
        #expect(!h.machine.isSourceOn)
    }

    @Test("region monitors run the GNSS (their mode is the finest), not the coarse source; the coarse source serves what else is asked")
    func monitors() {
        var h = Self.harness()
        h.monitor("depot")
        #expect(Self.commands(h, of: 0) == [.start(.best)] && Self.commands(h, of: 1).isEmpty)
        h.oneShot("city", .city, timeout: .seconds(60))
        #expect(Self.commands(h, of: 1) == [.start(.lowest)], "while the GNSS acquires, the coarse source serves the city request")
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 5), source: 0)
        #expect(h.onlyResult("city")?.status == .success)
        #expect(Self.commands(h, of: 1) == [.start(.lowest), .stop], "the GNSS's first fix ends it")
        #expect(h.machine.statistics(now: h.now).sources.map(\.chosen) == [true, false])
    }

    @Test("a fix from a source the planner stopped is still a fix; statistics add up over the sources")
    func statistics() {
        var h = Self.harness()
        h.oneShot("city", .city, timeout: .seconds(120))
        h.advance(by: .seconds(10))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 700), source: 1)
        let statistics = h.machine.statistics(now: h.now)
        #expect(statistics.sources.count == 2)
        #expect(statistics.sources[1].starts == 1 && statistics.sources[1].onTime == .seconds(10))
        #expect(statistics.sources[0].starts == 0 && statistics.sourceStarts == 1 && statistics.sourceOnTime == .seconds(10))
    }
}
