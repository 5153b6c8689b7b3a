import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdCore
import LocationEngine
import LocationEngineTestKit
import Testing

@testable import LocationServer

@Suite("An approximate client gets the engine's reduced-accuracy grid, never a finer fix")
struct ApproximateClientTests {
    static let policy = ReducedAccuracyPolicy()

    /// The `location` events of a stream's body.
    static func locations(in body: ByteBuffer) throws -> [UpdateJSON] {
        try GeofenceEventsTests.events(body).filter { $0.name == "location" }.map { try JSONDecoder().decode(UpdateJSON.self, from: Data($0.data.utf8)) }
    }

    /// A server whose source a precise listener keeps running, so each request is answered from the newest fix,
    /// for the length of `body`.
    static func withTheSourceKeptRunning(_ body: (TestServer) async throws -> Void) async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        let keep = server.engine.updates(SubscriptionOptions()) { _, _ in }
        defer { server.engine.cancel(keep) }
        await server.waitUntilPending(subscriptions: 1)
        try await body(server)
    }

    /// Has the source emit ``fix(_:)`` 0 with a measured error of `measured` metres, then asks for `/location?accuracy=ACCURACY&timeout=1s`
    /// as the approximate client `weather`: the answer's status, and whether it came before the request's timeout.
    static func ask(
        _ accuracy: String, afterAFixOf measured: Double, on server: TestServer, with client: some TestClientProtocol
    ) async throws -> (status: String, beforeTheTimeout: Bool) {
        var fix = Self.fix(0)
        fix.horizontalAccuracy = measured
        server.source.emit(fix)
        await server.engine.sync(advancingBy: .seconds(1))
        let before = await server.engine.statistics()
        async let answer = ClientTestSupport.execute("/location?accuracy=\(accuracy)&timeout=1s", as: "weather", with: client)
        // Answered at once by the fix, or waiting in the engine until its timeout.
        await server.waitUntil {
            $0.oneShotsSubmitted > before.oneShotsSubmitted && ($0.pendingOneShots == 1 || $0.oneShotsSucceeded > before.oneShotsSucceeded)
        }
        let waiting = await server.engine.statistics().pendingOneShots == 1
        await server.engine.sync(advancingBy: .seconds(2))
        return (try JSONDecoder().decode(LocationResponse.self, from: try await answer.body).status, !waiting)
    }

    /// A fix somewhere on Earth (away from the poles), its radius 2 to 50 m: the `index`-th of a fixed sequence.
    static func fix(_ index: Int) -> Location {
        var generator = SplitMix64(seed: UInt64(index))
        return Location(
            latitude: .random(in: -80...80, using: &generator), longitude: .random(in: -180..<180, using: &generator),
            horizontalAccuracy: .random(in: 2...50, using: &generator))
    }

    @Test("10,000 answers of /location at every accuracy, one a second: each fix is the coarse form of one measured, marked, none finer than the grid, a newly measured one at most every 10 minutes")
    func tenThousandAnswers() async throws {
        try await Self.withTheSourceKeptRunning { server in
            let accuracies = ["city", "5000", "neighborhood", "block", "house", "room", "3000"]
            try await server.application.test(.router) { client in
                var statuses: [String: Int] = [:]
                for index in 0..<10_000 {
                    server.source.emit(Self.fix(index))
                    await server.engine.sync(advancingBy: .seconds(1))
                    let accuracy = accuracies[index % accuracies.count]
                    let answer = try await ClientTestSupport.execute("/location?accuracy=\(accuracy)&timeout=1s", as: "weather", with: client)
                    let body = try JSONDecoder().decode(LocationResponse.self, from: answer.body)
                    let fix = try #require(body.fix, "answer \(index) (\(accuracy)): \(body.status)")
                    let location = Location(latitude: fix.latitude, longitude: fix.longitude, horizontalAccuracy: fix.horizontalAccuracy)
                    #expect(Self.policy.isCoarse(location) && fix.coarsened == true, "answer \(index)")
                    // A fix measured each second; a newly measured one shown every 600 (the policy's interval).
                    let shown = index - index % 600
                    #expect(location == Self.policy.coarsen(Self.fix(shown)).withoutTime, "answer \(index)")
                    #expect(fix.age.map { abs($0 - Double(index - shown + 1)) < 0.001 } == true, "answer \(index): as old as the fix shown: \(String(describing: fix.age))")
                    #expect(fix.altitude == nil && fix.speed == nil && fix.course == nil)
                    // Met only when the coarse fix, as old as it is, meets what was asked.
                    let asked = try LocationQuery(QueryParameters(uri: URI("/location?accuracy=\(accuracy)"), accepted: LocationQuery.accepted)).accuracy
                    let meets = asked.isSatisfied(horizontalAccuracy: fix.horizontalAccuracy, age: .seconds(fix.age ?? 0))
                    #expect(body.status == (meets ? "success" : "accuracy_reduced"), "answer \(index) (\(accuracy), \(fix.age ?? 0) s old)")
                    statuses[body.status, default: 0] += 1
                }
                // Finer than the grid is never met: marked accuracy_reduced (as the engine answers under reduced accuracy).
                #expect(statuses["accuracy_reduced", default: 0] >= 10_000 * 4 / 7)
                #expect(statuses["success", default: 0] > 0)
            }
        }
    }

    @Test("an approximate request is answered by the first fix whose coarse form meets it, and whether it is tells the measured error no finer than the coarse radius's step")
    func answeredOrNotHidesTheMeasuredError() async throws {
        try await Self.withTheSourceKeptRunning { server in
            try await server.application.test(.router) { client in
                var statuses: [Double: [String]] = [:]
                // 1,700 m and 2,370 m: both coarse radii are 4,500 m (the cell's corner, about 2,121 m, added and rounded
                // up to 750 m).
                for measured in [1700.0, 2370] {
                    var fix = Self.fix(0)
                    fix.horizontalAccuracy = measured
                    #expect(Self.policy.coarsen(fix).horizontalAccuracy == 4500)
                }
                for measured in [1700.0, 2370] {
                    for metres in [4499, 4500, 5344, 5999] {
                        statuses[measured, default: []].append(try await Self.ask("\(metres)", afterAFixOf: measured, on: server, with: client).status)
                    }
                }
                // 4,500 m and more are met by the coarse 4,500 m, and asked of the engine as 4,500 m less the corner: answered.
                // Before, the engine was asked for 1,500 m or 2,250 m (the grid, not the corner, taken off): every one timed
                // out, with a coarse fix that met it. 4,499 m is met by no coarse form of either fix.
                #expect(statuses[1700] == ["timed_out", "success", "success", "success"], "\(statuses)")
                #expect(statuses[2370] == statuses[1700], "the answers tell 1,700 m from 2,370 m, which the coarse radius does not")
            }
        }
    }

    @Test("an approximate request finer than the grid is answered accuracy_reduced, and whether before its timeout tells the measured error no finer than the coarse radius")
    func finerThanTheGridHidesTheMeasuredError() async throws {
        try await Self.withTheSourceKeptRunning { server in
            try await server.application.test(.router) { client in
                // 800 m: a coarse radius of 3,000 m, the finest (the cell's corner, about 2,121 m, added and rounded up to
                // 750 m); 900 m and 1,500 m: both 3,750 m. Before, the engine was asked for 1,000 m: 900 m was answered at
                // once and 1,500 m timed out, which told them apart.
                let coarse = [800.0, 900, 1500].map { measured in
                    var fix = Self.fix(0)
                    fix.horizontalAccuracy = measured
                    return Self.policy.coarsen(fix).horizontalAccuracy
                }
                #expect(coarse == [3000, 3750, 3750])
                var answers: [Double: (status: String, beforeTheTimeout: Bool)] = [:]
                for measured in [800.0, 900, 1500] {
                    answers[measured] = try await Self.ask("house", afterAFixOf: measured, on: server, with: client)
                }
                #expect(answers.values.allSatisfy { $0.status == "accuracy_reduced" }, "\(answers)")
                #expect(answers[800]?.beforeTheTimeout == true)
                #expect(answers[900]?.beforeTheTimeout == false && answers[1500]?.beforeTheTimeout == false, "\(answers)")
            }
        }
    }

    @Test("polling /location every second across a cell's edge: the new cell shows only once the interval has passed since the one shown, for every approximate client", .timeLimit(.minutes(1)))
    func pollingDoesNotShowWhenTheCellChanges() async throws {
        try await Self.withTheSourceKeptRunning { server in
            // Walking east across a cell's edge: the coarse cell changes between two fixes a second apart.
            let west = Location(latitude: 48.1, longitude: 11.5, horizontalAccuracy: 5)
            let cells = (0..<200).map { second in
                Location(latitude: 48.1, longitude: 11.5 + Double(second) * 0.0004, horizontalAccuracy: 5)
            }
            let change = try #require(cells.indices.dropFirst().first { Self.policy.coarsen(cells[$0]) != Self.policy.coarsen(cells[$0 - 1]) })
            try await server.application.test(.router) { client in
                var seen: [Location] = []
                for (second, fix) in cells.enumerated() {
                    server.source.emit(fix)
                    await server.engine.sync(advancingBy: .seconds(1))
                    let answer = try await ClientTestSupport.execute("/location?accuracy=city&timeout=1s", as: "weather", with: client)
                    let body = try JSONDecoder().decode(LocationResponse.self, from: answer.body)
                    let shown = try #require(body.fix, "second \(second)")
                    seen.append(Location(latitude: shown.latitude, longitude: shown.longitude, horizontalAccuracy: shown.horizontalAccuracy))
                }
                #expect(Set(seen.map { "\($0.latitude),\($0.longitude)" }).count == 1, "one cell shown for 200 s, the crossing at \(change) s unseen")
                #expect(seen.first == Self.policy.coarsen(west).withoutTime)
                // A stream opened now starts with the same cell, not the newer one.
                async let stream = ClientTestSupport.execute("/updates?accuracy=city&maxUpdates=1", as: "weather", with: client)
                await server.waitUntilPending(subscriptions: 2)
                server.source.emit(try #require(cells.last))
                await server.engine.sync(advancingBy: .seconds(1))
                let update = try #require(GeofenceEventsTests.events(try await stream.body).first { $0.name == "location" })
                let fix = try JSONDecoder().decode(UpdateJSON.self, from: Data(update.data.utf8)).fix
                #expect(Location(latitude: fix.latitude, longitude: fix.longitude, horizontalAccuracy: fix.horizontalAccuracy) == seen[0])
            }
        }
    }

    @Test("a stream's next coarse update comes the interval after the last one was shown, even when its fix arrived a second old", .timeLimit(.minutes(1)))
    func aStreamsUpdatesAreSpacedByWhenTheyWereShown() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            async let stream = ClientTestSupport.execute("/updates?accuracy=city&maxUpdates=2", as: "weather", with: client)
            await server.waitUntilPending(subscriptions: 1)
            server.source.emit(Self.fix(0))
            await server.engine.sync(advancingBy: .seconds(600))
            // Measured a second before the interval's end, delivered at it.
            server.source.emit(Self.fix(1), age: .seconds(1))
            await server.engine.sync(advancingBy: .seconds(1))
            let updates = try Self.locations(in: try await stream.body).map(\.fix)
            let shown = updates.map { Location(latitude: $0.latitude, longitude: $0.longitude, horizontalAccuracy: $0.horizontalAccuracy) }
            #expect(shown == [Self.policy.coarsen(Self.fix(0)).withoutTime, Self.policy.coarsen(Self.fix(1)).withoutTime])
        }
    }

    @Test("a one-shot that timed out with a fix known says why in words of the coarse fix, never the measured radius")
    func theReasonDescribesTheCoarseFix() {
        let answers = ApproximateAnswers(policy: Self.policy)
        let measured = Location(latitude: 48.1173, longitude: 11.5167, horizontalAccuracy: 2_345)
        var engine = LocationResult(status: .timedOut, location: measured, age: .seconds(3), achievedAccuracy: nil)
        engine.reason = .accuracyNotReached(best: measured, age: .seconds(3), finestReach: 3)
        #expect(engine.reason?.message.contains("2300 m") == true, "the engine's words name the measured radius")
        let answer = answers.result(engine, asked: .city, now: EngineInstant(.seconds(3)))
        let coarse = Self.policy.coarsen(measured)
        #expect(answer.location == coarse)
        #expect(answer.reason?.code == "accuracy_not_reached")
        #expect(answer.reason?.message.contains("2300 m") == false && answer.reason?.message.contains("3 m") == false, "\(String(describing: answer.reason))")
        #expect(answer.reason == .accuracyNotReached(best: coarse, age: .seconds(3), finestReach: 0))
    }

    @Test("a stream's distances are no shorter than the grid: updates after a metres-long move would say the device moved within its cell")
    func distancesNoShorterThanTheGrid() {
        let answers = ApproximateAnswers(policy: Self.policy)
        let grid = Self.policy.gridSpacing
        #expect(answers.options(SubscriptionOptions(distanceFilter: 5)).distanceFilter == grid)
        #expect(answers.options(SubscriptionOptions(distanceFilter: 0)).distanceFilter == 0, "off stays off")
        #expect(answers.options(SubscriptionOptions(distanceFilter: 2 * grid)).distanceFilter == 2 * grid)
        #expect(answers.options(SubscriptionOptions(kind: .significantChange)).significantDistance == grid)
    }

    @Test("a maxUpdates that an approximate client's spacing of updates makes unreachable is refused (400), as for an interval asked for")
    func unreachableMaxUpdatesOfAnApproximateClient() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            let refused = try await ClientTestSupport.execute("/updates?interval=1s&duration=15m&maxUpdates=5", as: "weather", with: client)
            #expect(refused.status == .badRequest)
            #expect(try LocationRouteTests.errorMessage(refused.body).contains("approximate"))
            // Two updates 10 minutes apart fit in 15 minutes.
            async let stream = ClientTestSupport.execute("/updates?duration=15m&maxUpdates=2", as: "weather", with: client)
            await server.waitUntilPending(subscriptions: 1)
            await server.engine.sync(advancingBy: .seconds(901))
            let ended = try await stream
            #expect(ended.status == .ok)
            #expect(String(buffer: ended.body).contains("duration_elapsed"))
        }
    }

    @Test("an approximate client's stream without an accuracy runs the source in its cheapest mode, not its best, and gets every fix coarsened")
    func unfilteredStreamRunsTheCheapestMode() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            async let stream = ClientTestSupport.execute("/updates?maxUpdates=1", as: "weather", with: client)
            await server.waitUntilPending(subscriptions: 1)
            await server.engine.sync()
            #expect(server.source.mode == .lowest)
            server.source.emit(Self.fix(0))
            await server.engine.sync()
            let updates = try Self.locations(in: try await stream.body)
            #expect(updates.count == 1 && updates.first?.fix.coarsened == true)
        }
    }

    @Test("a stream sends coarse fixes, marked, at most one per the policy's interval; heading and fences need precise")
    func stream() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            async let stream = ClientTestSupport.execute("/updates?accuracy=house&maxUpdates=3", as: "weather", with: client)
            await server.waitUntilPending(subscriptions: 1)
            for index in 0..<8 {
                server.source.emit(Self.fix(index))
                await server.engine.sync(advancingBy: .seconds(300))
            }
            let body = try await stream.body
            let events = GeofenceEventsTests.events(body)
            let updates = try Self.locations(in: body)
            #expect(updates.count == 3)
            for (update, index) in zip(updates, [0, 2, 4]) {
                let location = Location(latitude: update.fix.latitude, longitude: update.fix.longitude, horizontalAccuracy: update.fix.horizontalAccuracy)
                #expect(location == Self.policy.coarsen(Self.fix(index)).withoutTime && update.fix.coarsened == true)
            }
            #expect(events.last?.name == "end")

            let heading = try await ClientTestSupport.execute("/updates?kind=heading", as: "weather", with: client)
            #expect(heading.status == .forbidden)
            let fence = try await ClientTestSupport.execute("/geofences", as: "weather", method: .post, body: GeofenceRoutesTests.depot, with: client)
            #expect(fence.status == .forbidden)
            #expect(try LocationRouteTests.errorMessage(fence.body).contains("precise"))
            // The fences' transition counts move as the device crosses a boundary: /metrics is precise clients' too.
            let metrics = try await ClientTestSupport.execute("/metrics", as: "weather", with: client)
            #expect(metrics.status == .forbidden)
            #expect(try LocationRouteTests.errorMessage(metrics.body).contains("metrics need precise"))
        }
    }
}

extension Location {
    /// The position and radius alone, as a fix's JSON carries them.
    var withoutTime: Location { Location(latitude: latitude, longitude: longitude, horizontalAccuracy: horizontalAccuracy) }
}
