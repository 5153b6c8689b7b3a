import Foundation
import Hummingbird
import HummingbirdTesting
import LocationEngine
import Testing

@testable import LocationServer

/// `GET /geofences/events` with `Last-Event-ID`: every event after it once, in order, from the store
/// then live, across a restart; retention by count and age.
@Suite("GET /geofences/events resumes")
struct EventResumeTests {
    typealias Support = StorageTestSupport

    /// Outside, inside, outside: events 1 (determined), 2 (entered) and 3 (exited) of the depot fence.
    static func threeEvents(on server: TestServer, with client: some TestClientProtocol) async throws {
        #expect(try await Support.createDepot(on: server, with: client).status == .created)
        for latitude in [48.150, 48.137, 48.150] { await Support.fix(server, latitude: latitude) }
        try await server.geofences.journal.flush()
    }

    @Test("every event has the next id; Last-Event-ID replays after it from the store, then goes on live, with no gap or duplicate at the seam", .timeLimit(.minutes(1)))
    func resumeFromTheStoreThenLive() async throws {
        // A memory of one event: the replay of 2 and 3 is read from the database.
        let server = try TestServer(recentCapacity: 1)
        try await server.application.test(.router) { client in
            async let all = client.execute(uri: "/geofences/events", method: .get)
            await GeofenceEventsTests.waitForListeners(1, on: server)
            try await Self.threeEvents(on: server, with: client)
            async let resumed = client.execute(uri: "/geofences/events", method: .get, headers: [.lastEventID: "1"])
            await GeofenceEventsTests.waitForListeners(2, on: server)
            await Support.fix(server, latitude: 48.137)   // entered: 4, live
            #expect(try await client.execute(uri: "/geofences/1", method: .delete).status == .noContent)   // end: 5
            await server.geofences.close()
            let every = Support.stored(try await all.body)
            #expect(every.map(\.id) == [1, 2, 3, 4, 5])
            #expect(every.map(\.name) == ["transition", "transition", "transition", "transition", "end"])
            let after = Support.stored(try await resumed.body)
            #expect(after.map(\.id) == [2, 3, 4, 5])
            #expect(after.map(\.data) == Array(every.map(\.data).dropFirst()))
        }
    }

    @Test("a resume at every seam: before the first event, in the middle, at the newest", .timeLimit(.minutes(1)))
    func everySeam() async throws {
        let server = try TestServer(recentCapacity: 2)
        try await server.application.test(.router) { client in
            try await Self.threeEvents(on: server, with: client)
            let streams = (0...3).map { id in
                Task { try await client.execute(uri: "/geofences/events?lastEventId=\(id)", method: .get) }
            }
            await GeofenceEventsTests.waitForListeners(4, on: server)
            await Support.fix(server, latitude: 48.137)   // 4
            await server.geofences.close()
            for (id, stream) in streams.enumerated() {
                #expect(Support.stored(try await stream.value.body).map(\.id) == Array(Int64(id + 1)...4))
            }
        }
    }

    @Test("across a restart: a client resuming with the first run's id gets the rest of that run's events and the new ones", .timeLimit(.minutes(1)))
    func acrossARestart() async throws {
        try await Support.withDatabaseFile { path in
            let one = try TestServer(database: path)
            try await one.application.test(.router) { client in try await Self.threeEvents(on: one, with: client) }
            let two = try TestServer(database: path)
            try await two.application.test(.router) { client in
                await two.waitUntilPending(subscriptions: 1)
                async let resumed = client.execute(uri: "/geofences/events", method: .get, headers: [.lastEventID: "1"])
                await GeofenceEventsTests.waitForListeners(1, on: two)
                await Support.fix(two, latitude: 48.137)   // entered, against the restored outside: 4
                await two.geofences.close()
                let events = Support.stored(try await resumed.body)
                #expect(events.map(\.id) == [2, 3, 4])
                #expect(try Support.transition(events[2].data).whileStopped == true)
            }
        }
    }

    @Test("retention by count: an id older than the oldest kept is answered 410 naming it; the one just before it still resumes", .timeLimit(.minutes(1)))
    func retentionByCount() async throws {
        let server = try TestServer(retention: EventStore.Retention(count: 2, age: 86_400))
        try await server.application.test(.router) { client in
            try await Self.threeEvents(on: server, with: client)
            let gone = try await client.execute(uri: "/geofences/events", method: .get, headers: [.lastEventID: "0"])
            #expect(gone.status == .gone)
            #expect(String(buffer: gone.body).contains("the oldest kept is 2"))
            let ahead = try await client.execute(uri: "/geofences/events?lastEventId=4", method: .get)
            #expect(ahead.status == .badRequest && String(buffer: ahead.body).contains("the newest is 3"))
            #expect(try await client.execute(uri: "/geofences/events?lastEventId=x", method: .get).status == .badRequest)
            // Digits only, in either place, and a malformed one is refused even beside a good one.
            #expect(try await client.execute(uri: "/geofences/events", method: .get, headers: [.lastEventID: "+1"]).status == .badRequest)
            #expect(try await client.execute(uri: "/geofences/events?lastEventId=-0", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/geofences/events?lastEventId=x", method: .get, headers: [.lastEventID: "1"]).status == .badRequest)
            async let kept = client.execute(uri: "/geofences/events", method: .get, headers: [.lastEventID: "1"])
            await GeofenceEventsTests.waitForListeners(1, on: server)
            await server.geofences.close()
            #expect(Support.stored(try await kept.body).map(\.id) == [2, 3])
        }
    }

    @Test("retention by age: events older than it are gone at the next write; at a commit of no event, none is kept, and the 410 says so rather than naming an id that does not exist", .timeLimit(.minutes(1)))
    func retentionByAge() async throws {
        let wall = WallClock()
        let server = try TestServer(retention: EventStore.Retention(count: 100, age: 60), wallClock: wall)
        try await server.application.test(.router) { client in
            try await Self.threeEvents(on: server, with: client)
            wall.advance(by: 61)
            await Support.fix(server, latitude: 48.137)   // 4, which prunes 1 to 3
            try await server.geofences.journal.flush()
            let gone = try await client.execute(uri: "/geofences/events?lastEventId=2", method: .get)
            #expect(gone.status == .gone && String(buffer: gone.body).contains("the oldest kept is 4"))
            async let kept = client.execute(uri: "/geofences/events?lastEventId=3", method: .get)
            await GeofenceEventsTests.waitForListeners(1, on: server)
            // A new fence is written without an event: its commit, past the age again, prunes 4 and keeps none.
            wall.advance(by: 61)
            #expect(try await Support.createDepot(on: server, with: client).status == .created)
            try await server.geofences.journal.flush()
            let none = try await client.execute(uri: "/geofences/events?lastEventId=2", method: .get)
            let body = String(buffer: none.body)
            #expect(none.status == .gone && body.contains("no event is kept; the next will be 5") && !body.contains("oldest kept"), "\(body)")
            await server.geofences.close()
            #expect(Support.stored(try await kept.body).map(\.id) == [4])
        }
    }
}
