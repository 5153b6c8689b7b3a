import LocationEngineTestKit
import Testing
@testable import LocationEngine

@Suite("Reduced accuracy and temporary full accuracy, in the scheduler")
struct ReducedAccuracyTests {
    let policy = ReducedAccuracyPolicy()

    func precise(_ metres: Double = 5, latitude: Double = 48.137, longitude: Double = 11.575) -> Location {
        Location(
            latitude: latitude, longitude: longitude, horizontalAccuracy: metres, altitude: 519, ellipsoidalAltitude: 566,
            verticalAccuracy: 3, speed: 1.4, course: 0, utcTime: 1_700_000_000)
    }

    @Test("the grid: positions snap to cell centres (idempotently), within the reported accuracy, everywhere on Earth")
    func grid() {
        var random = SplitMix64(seed: 7)
        let points = (0..<20_000).map { _ in
            (Double(random.int(180_001)) / 1000 - 90, Double(random.int(360_001)) / 1000 - 180)
        } + [(90, 180), (-90, -180), (0, 180), (89.9999, 12), (-89.9999, -179.9999), (0, 0)]
        for (latitude, longitude) in points {
            let original = Location(latitude: latitude, longitude: longitude, horizontalAccuracy: 8)
            let coarse = policy.coarsen(original)
            #expect(policy.isCoarse(coarse), "\(latitude), \(longitude)")
            #expect(policy.coarsen(coarse).latitude == coarse.latitude && policy.coarsen(coarse).longitude == coarse.longitude)
            #expect(original.distance(to: coarse) + original.horizontalAccuracy <= coarse.horizontalAccuracy)
            #expect(coarse.horizontalAccuracy >= 3000)
        }
        // Cells are a few km across: nearby points share a centre, distant ones do not.
        let a = policy.coarsen(precise(latitude: 48.1371, longitude: 11.5751))
        let b = policy.coarsen(precise(latitude: 48.1372, longitude: 11.5752))
        #expect(a.latitude == b.latitude && a.longitude == b.longitude)
        #expect(policy.coarsen(precise(latitude: 48.3)).latitude != a.latitude)
    }

    @Test("the largest measured error whose coarse form meets a radius: a fix of the cell meets it exactly when its coarse form does")
    func largestMeasuredError() throws {
        // City (5,000 m) in Munich: 4,500 m on the steps, less the cell's farthest corner (about 2,121 m).
        let city = try #require(policy.largestMeasuredError(coarsenedWithin: 5000, near: 48.137, 11.575))
        #expect(abs(city - 2379) < 1, "\(city)")
        #expect(policy.largestMeasuredError(coarsenedWithin: 2999, near: 48.137, 11.575) == nil)
        #expect(policy.largestMeasuredError(coarsenedWithin: .nan, near: 48.137, 11.575) == nil)
        var random = SplitMix64(seed: 11)
        for _ in 0..<5_000 {
            let latitude = Double(random.int(160_001)) / 1000 - 80
            let longitude = Double(random.int(360_001)) / 1000 - 180
            let radius = 3000 + Double(random.int(17_001))
            let largest = try #require(policy.largestMeasuredError(coarsenedWithin: radius, near: latitude, longitude))
            let at = Location(latitude: latitude, longitude: longitude, horizontalAccuracy: largest)
            #expect(policy.coarsen(at).horizontalAccuracy <= radius, "\(latitude), \(longitude), \(radius)")
            let past = Location(latitude: latitude, longitude: longitude, horizontalAccuracy: largest + 0.01)
            #expect(policy.coarsen(past).horizontalAccuracy > radius, "\(latitude), \(longitude), \(radius)")
            // A band away, the corner differs by well under a metre.
            let north = Location(latitude: latitude + 0.027, longitude: longitude, horizontalAccuracy: largest - 1)
            #expect(policy.coarsen(north).horizontalAccuracy <= radius, "\(latitude), \(longitude), \(radius)")
        }
    }

    @Test("policy values are clamped, never trusted blindly")
    func clamping() {
        #expect(ReducedAccuracyPolicy(gridSpacing: .nan).gridSpacing == 3000)
        #expect(ReducedAccuracyPolicy(gridSpacing: 1).gridSpacing == 1000)
        #expect(ReducedAccuracyPolicy(gridSpacing: 1e12).gridSpacing == 20_000)
        #expect(ReducedAccuracyPolicy(minimumInterval: .seconds(-5)).minimumInterval == .zero)
    }

    @Test("every fix is coarsened before delivery: position, accuracy, altitude, speed and course")
    func coarsened() {
        var h = MachineHarness(accuracy: .reduced)
        h.subscribe("s")
        h.oneShot("city", .city, timeout: .seconds(30))
        h.fix(precise())
        let update = h.events["s"]?.first
        guard case .location(let delivered)? = update else {
            Issue.record("no update: \(String(describing: update))")
            return
        }
        #expect(delivered.location == policy.coarsen(precise()))
        #expect(policy.isCoarse(delivered.location))
        #expect(delivered.achievedAccuracy == .city)
        #expect(h.onlyResult("city")?.location == policy.coarsen(precise()))
        #expect(h.machine.lastKnownLocation(now: h.now)?.location == policy.coarsen(precise()))
        #expect(h.sourceCommands == [.start(.lowest)], "coarse fixes need only the cheapest mode")
    }

    @Test("updates are throttled to one per minimum interval")
    func throttled() {
        var h = MachineHarness(accuracy: .reduced)
        h.subscribe("s")
        for _ in 0..<25 {
            h.fix(precise(latitude: 48 + Double(h.now.sinceEpoch.components.seconds) / 1000))
            h.advance(by: .seconds(60))
        }
        #expect(h.events["s"]?.count == 3, "fixes at 0, 10 and 20 minutes")
        #expect(h.machine.statistics(now: h.now).fixesThrottled == 22)
    }

    @Test("fixes cached under full accuracy are coarsened when accuracy becomes reduced")
    func cacheCoarsened() {
        var h = MachineHarness()
        h.oneShot("a", .room, timeout: nil)
        h.fix(precise(3))
        #expect(h.onlyResult("a")?.location == precise(3))
        h.setAccuracy(.reduced)
        h.oneShot("b", .city, timeout: nil)
        #expect(h.onlyResult("b")?.location == policy.coarsen(precise(3)))
        #expect(h.machine.lastKnownLocation(now: h.now)?.location.map(policy.isCoarse) == true)
    }

    @Test("best fix on timeout and on force-complete is coarse")
    func bestFixCoarse() {
        var h = MachineHarness(accuracy: .reduced)
        h.oneShot("t", .city, timeout: .seconds(10))
        h.oneShot("f", .city, timeout: nil)
        h.fix(precise(4000))  // coarsened to 4000 + half a cell: too coarse for city
        h.advance(by: .seconds(10))
        h.forceComplete("f")
        #expect(h.onlyResult("t")?.status == .timedOut)
        #expect(h.onlyResult("t")?.location.map(policy.isCoarse) == true)
        #expect(h.onlyResult("f")?.status == .forceCompleted)
        #expect(h.onlyResult("f")?.location.map(policy.isCoarse) == true)
    }

    @Test("a request finer than reduced accuracy ends at once with a dedicated status, never a silent timeout")
    func finerEndsAtOnce() {
        var h = MachineHarness(accuracy: .reduced)
        h.oneShot("fine", .block, timeout: .seconds(60))
        h.subscribe("fineSub", SubscriptionOptions(accuracy: .house))
        h.subscribe("heading", SubscriptionOptions(kind: .heading))
        h.subscribe("plain")
        #expect(h.onlyResult("fine")?.status == .accuracyReduced)
        #expect(h.ends("fineSub") == [.accuracyReduced])
        #expect(h.ends("heading") == [.accuracyReduced], "course is withheld under reduced accuracy")
        #expect(h.ends("plain").isEmpty)
        #expect(h.fullAccuracyRequests.isEmpty)
        #expect(h.machine.statistics(now: h.now).pendingOneShots == 0)
    }

    @Test("requests naming a declared purpose key ask for temporary full accuracy once, and proceed when granted")
    func temporaryFullAccuracyGranted() {
        var h = MachineHarness(accuracy: .reduced, purposeKeys: ["Navigation"])
        for index in 0..<100 { h.oneShot("r\(index)", .house, timeout: .seconds(60), purposeKey: "Navigation") }
        h.subscribe("s", SubscriptionOptions(accuracy: .room, purposeKey: "Navigation"))
        #expect(h.fullAccuracyRequests == ["Navigation"])
        #expect(h.sourceCommands.isEmpty, "waiting for the answer does not power the source")
        h.setAccuracy(.full)
        #expect(h.sourceCommands == [.start(.best)])
        h.fix(precise(4))
        #expect(h.results.count == 100)
        #expect(h.results.values.allSatisfy { $0 == [LocationResult(status: .success, location: precise(4), age: .zero, achievedAccuracy: .room)] })
        #expect(h.deliveredAccuracies("s") == [4])
    }

    @Test("a refusal ends the waiting requests with the dedicated status; later ones end at once until a new session")
    func temporaryFullAccuracyRefused() {
        var h = MachineHarness(accuracy: .reduced, purposeKeys: ["Navigation"])
        h.oneShot("a", .house, timeout: .seconds(60), purposeKey: "Navigation")
        h.subscribe("s", SubscriptionOptions(accuracy: .room, purposeKey: "Navigation"))
        h.refuseFullAccuracy()
        #expect(h.onlyResult("a")?.status == .accuracyReduced)
        #expect(h.ends("s") == [.accuracyReduced])
        h.oneShot("b", .house, timeout: .seconds(60), purposeKey: "Navigation")
        #expect(h.onlyResult("b")?.status == .accuracyReduced)
        #expect(h.fullAccuracyRequests == ["Navigation"], "asked once")
        h.machine.access.beginNewSession()
        h.oneShot("c", .house, timeout: .seconds(60), purposeKey: "Navigation")
        #expect(h.results["c"] == nil)
        #expect(h.fullAccuracyRequests == ["Navigation", "Navigation"])
    }

    @Test("an undeclared purpose key is a configuration error, in any accuracy")
    func undeclaredPurposeKey() {
        var h = MachineHarness(purposeKeys: ["Navigation"])
        h.oneShot("a", .house, timeout: nil, purposeKey: "Typo")
        h.subscribe("s", SubscriptionOptions(purposeKey: "Typo"))
        #expect(h.onlyResult("a")?.status == .misconfigured(.undeclaredPurposeKey("Typo")))
        #expect(h.ends("s") == [.misconfigured(.undeclaredPurposeKey("Typo"))])
        #expect(h.sourceCommands.isEmpty)
    }

    @Test("full → reduced mid-flight: finer requests end or wait for full accuracy, coarse ones carry on, power drops")
    func reducedMidFlight() {
        var h = MachineHarness(purposeKeys: ["Navigation"])
        h.oneShot("fine", .room, timeout: .seconds(60))
        h.oneShot("keyed", .room, timeout: .seconds(60), purposeKey: "Navigation")
        h.oneShot("city", .city, timeout: .seconds(60))
        h.subscribe("plain")
        #expect(h.sourceCommands == [.start(.best)])
        h.setAccuracy(.reduced)
        #expect(h.onlyResult("fine")?.status == .accuracyReduced)
        #expect(h.results["keyed"] == nil)
        #expect(h.fullAccuracyRequests == ["Navigation"])
        #expect(h.sourceCommands == [.start(.best), .setMode(.lowest)])
        h.fix(precise(2))
        #expect(h.onlyResult("city")?.location == policy.coarsen(precise(2)))
        #expect(h.deliveredAccuracies("plain") == [policy.coarsen(precise(2)).horizontalAccuracy])
        #expect(h.results["keyed"] == nil)
        h.setAccuracy(.full)
        #expect(h.sourceCommands.last == .setMode(.best))
        h.advance(by: .seconds(1))
        h.fix(precise(2))
        #expect(h.onlyResult("keyed")?.location == precise(2))
    }

    @Test("requests admitted after authorization under reduced accuracy are routed the same way")
    func admittedUnderReduced() {
        var h = MachineHarness(authorization: .notDetermined, accuracy: .reduced, purposeKeys: ["Navigation"])
        h.oneShot("fine", .block, timeout: nil)
        h.oneShot("keyed", .block, timeout: nil, purposeKey: "Navigation")
        h.oneShot("city", .city, timeout: nil)
        h.authorize(.authorized)
        #expect(h.onlyResult("fine")?.status == .accuracyReduced)
        #expect(h.fullAccuracyRequests == ["Navigation"])
        #expect(h.sourceCommands == [.start(.lowest)])
    }

    @Test("a dismissed prompt ends the waiting requests; the next one asks again")
    func endAwaiting() {
        var h = MachineHarness(authorization: .notDetermined)
        h.oneShot("a", .city, timeout: nil, delayUntilAuthorized: true)
        h.subscribe("s")
        h.dismissAuthorizationPrompt()
        #expect(h.onlyResult("a")?.status == .unauthorized(.undecided))
        #expect(h.ends("s") == [.unauthorized(.undecided)])
        h.oneShot("b", .city, timeout: nil)
        #expect(h.authorizationRequests == 2)
        #expect(h.machine.statistics(now: h.now).pendingOneShots == 1)
    }

    /// The privacy property: across random request mixes and fix streams, nothing delivered under
    /// reduced accuracy — one-shot results, subscription updates, cached fixes, best fixes on timeout —
    /// is finer than the grid.
    @Test("property: nothing delivered under reduced accuracy is finer than the grid", arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func nothingFinerThanGrid(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var h = MachineHarness(linger: .seconds(random.int(3)), purposeKeys: ["Navigation"])
        let accuracies: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room, .custom(metres: 3500, maximumAge: .seconds(900))]
        // A while under full accuracy fills the cache with precise fixes; then reduced for the rest.
        let switchAt = 50 + random.int(100)
        var reducedSince: (results: [String: Int], events: [String: Int])?
        for step in 0..<2_000 {
            if step == switchAt {
                h.setAccuracy(.reduced)
                reducedSince = (h.results.mapValues(\.count), h.events.mapValues(\.count))
            }
            switch random.int(10) {
            case 0, 1, 2:
                let timeout: Duration? = random.oneIn(3) ? nil : .seconds(1 + random.int(120))
                h.oneShot("o\(step)", accuracies[random.int(accuracies.count)], timeout: timeout,
                          purposeKey: random.oneIn(4) ? "Navigation" : nil)
            case 3:
                let kinds: [SubscriptionKind] = [.standard, .passive, .significantChange]
                h.subscribe("s\(step)", SubscriptionOptions(
                    kind: kinds[random.int(kinds.count)], accuracy: random.oneIn(2) ? nil : .city,
                    distanceFilter: Double(random.int(3)) * 1000, maximumUpdates: random.oneIn(2) ? nil : 1 + random.int(5)))
            case 4:
                if let tag = h.ids.keys.sorted().randomElement(using: &random) { h.forceComplete(tag) }  // sorted: reproducible
            case 5, 6, 7:
                h.fix(Location(
                    latitude: Double(random.int(170_000)) / 1000 - 85, longitude: Double(random.int(360_000)) / 1000 - 180,
                    horizontalAccuracy: Double(1 + random.int(5000)), altitude: Double(random.int(3000)),
                    verticalAccuracy: 4, speed: Double(random.int(40)), course: Double(random.int(360))),
                    age: .seconds(random.int(30)))
            default:
                h.advance(by: .seconds(random.int(400)))
            }
            if reducedSince != nil, step % 50 == 0, let known = h.machine.lastKnownLocation(now: h.now)?.location {
                #expect(policy.isCoarse(known), "cached fix at step \(step)")
            }
        }
        h.advance(by: .seconds(3600))
        // Every one-shot result and every update delivered after the switch is coarse.
        let atSwitch = try #require(reducedSince)
        var checked = 0
        for (tag, results) in h.results {
            for result in results.dropFirst(atSwitch.results[tag] ?? 0) {
                if let location = result.location {
                    #expect(policy.isCoarse(location), "\(tag): \(result)")
                    checked += 1
                }
                if result.status == .success { #expect(result.achievedAccuracy == .city || result.achievedAccuracy == nil) }
            }
        }
        for (tag, events) in h.events {
            for event in events.dropFirst(atSwitch.events[tag] ?? 0) {
                if case .location(let update) = event {
                    #expect(policy.isCoarse(update.location), "\(tag)")
                    checked += 1
                }
                if case .heading = event { Issue.record("a heading was delivered under reduced accuracy") }
            }
        }
        #expect(checked > 50, "the property was exercised (\(checked) deliveries checked)")
    }

    @Test("precise accuracy turned on and off again and again: the remembered fix stays as coarse as it was, and serves city requests from the cache")
    func recoarseningLeavesTheCacheAsItWas() throws {
        var h = MachineHarness(accuracy: .reduced)
        h.oneShot("first", .city, timeout: nil)
        h.fix(Location(latitude: 48.137, longitude: 11.575, horizontalAccuracy: 5))
        let remembered = try #require(h.machine.lastKnownLocation(now: h.now)?.location)
        for _ in 0..<3 {
            h.setAccuracy(.full)
            h.setAccuracy(.reduced)
        }
        #expect(h.machine.lastKnownLocation(now: h.now)?.location == remembered, "grew from \(remembered.horizontalAccuracy) m")
        h.oneShot("again", .city, timeout: nil)
        #expect(h.onlyResult("again")?.status == .success && h.onlyResult("again")?.location == remembered)
        // A coarse location is its own coarsened form; a precise one that merely sits on a cell's centre is not.
        let policy = ReducedAccuracyPolicy()
        #expect(policy.coarsen(remembered) == remembered)
        var onTheCentre = remembered
        for radius in [5.0, 750, 2250, 3001] {
            onTheCentre.horizontalAccuracy = radius
            #expect(policy.coarsen(onTheCentre).horizontalAccuracy >= radius + 2000, "\(radius) m on a centre")
        }
    }

    @Test("a one-shot that timed out and is reached after accuracy became reduced tells of the coarse fix, not the measured error")
    func timedOutReasonCoarsened() throws {
        var h = MachineHarness()
        h.oneShot("first", .room, timeout: .seconds(10))
        h.oneShot("second", .room, timeout: .seconds(10))
        h.fix(50)
        h.receive(MachineHarness.picture(.authorized, .reduced), after: .seconds(11))
        // The first handler takes two seconds: the reduction falls due before the second ending is reached.
        h.whileDelivering = { tag in tag == "first" ? ([], .seconds(2)) : nil }
        h.advance(by: .seconds(10))
        let first = try #require(h.onlyResult("first"))
        #expect(first.reason?.message.contains("±50 m") == true, "reached before the change: as decided")
        let second = try #require(h.onlyResult("second"))
        #expect(second.location.map(ReducedAccuracyPolicy().isCoarse) == true)
        #expect(second.reason?.code == "accuracy_not_reached")
        #expect(second.reason?.message.contains("±50 m") == false, "\(String(describing: second.reason))")
        #expect(second.reason?.message.contains("±\(Int(second.location!.horizontalAccuracy)) m") == true)
    }

    @Test("whether a location is coarse is answered for any input: a position that is no number or out of range is not")
    func isCoarseOfAnything() {
        let policy = ReducedAccuracyPolicy()
        for (latitude, longitude) in [(Double.nan, 0.0), (0, .nan), (.infinity, 0), (0, -.infinity), (1e300, 1e300), (-1e300, 0), (91, 0)] {
            #expect(!policy.isCoarse(Location(latitude: latitude, longitude: longitude, horizontalAccuracy: 3000)))
        }
        // Coarsening such a position does not trap either (the engine drops such fixes before it would).
        _ = policy.coarsen(Location(latitude: .nan, longitude: .infinity, horizontalAccuracy: 5))
    }
}
