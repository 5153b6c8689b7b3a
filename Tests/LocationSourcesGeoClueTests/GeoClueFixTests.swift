import CDBus
import LocationEngine
import Testing
@testable import LocationSourcesGeoClue

@Suite("GeoClue's Location properties to fixes")
struct GeoClueFixTests {
    static func properties(
        latitude: Double = 52.52, longitude: Double = 13.405, accuracy: Double = 25, altitude: Double = -Double.greatestFiniteMagnitude,
        speed: Double = -1, heading: Double = -1, timestamp: (UInt64, UInt64) = (1_795_737_603, 250_000)
    ) -> [String: DBusValue] {
        [
            "Latitude": .variant(.double(latitude)), "Longitude": .variant(.double(longitude)), "Accuracy": .variant(.double(accuracy)),
            "Altitude": .variant(.double(altitude)), "Speed": .variant(.double(speed)), "Heading": .variant(.double(heading)),
            "Description": .variant(.string("")),
            "Timestamp": .variant(.structure([.uint64(timestamp.0), .uint64(timestamp.1)])),
        ]
    }

    @Test("a full fix: every property mapped; the timestamp with its microseconds")
    func full() throws {
        let fix = try GeoClueFix.location(
            from: Self.properties(accuracy: 8, altitude: 38.7, speed: 1.68, heading: 8.15), accuracyClasses: GeoClueConfiguration.nmeaAccuracyClasses)
        #expect(fix.latitude == 52.52 && fix.longitude == 13.405 && fix.horizontalAccuracy == 8)
        #expect(fix.altitude == 38.7 && fix.speed == 1.68 && fix.course == 8.15)
        #expect(fix.utcTime == 1_795_737_603.25)
        #expect(!fix.horizontalAccuracyIsEstimated)
    }

    @Test("GeoClue's unknown markers are unknown: altitude -DBL_MAX, speed and heading -1, timestamp 0")
    func unknowns() throws {
        let fix = try GeoClueFix.location(
            from: Self.properties(accuracy: 0, timestamp: (0, 0)), accuracyClasses: GeoClueConfiguration.nmeaAccuracyClasses)
        #expect(fix.altitude == nil && fix.speed == nil && fix.course == nil && fix.utcTime == nil)
        #expect(fix.horizontalAccuracy == 7.5 && fix.horizontalAccuracyIsEstimated, "accuracy 0 is NMEA's best class, not perfect")
        var sparse = Self.properties()
        for key in ["Altitude", "Speed", "Heading", "Timestamp", "Description"] { sparse[key] = nil }
        #expect(try GeoClueFix.location(from: sparse, accuracyClasses: GeoClueConfiguration.nmeaAccuracyClasses).altitude == nil)
    }

    @Test("GeoClue's NMEA accuracy classes become honest radii, none as fine as a room; other accuracies are taken at their word")
    func accuracyClasses() throws {
        let classes = GeoClueConfiguration.nmeaAccuracyClasses
        for (reported, radius) in [(0.0, 7.5), (1, 15), (3, 37.5), (50, 75), (100, 150), (300, 300)] {
            let fix = try GeoClueFix.location(from: Self.properties(accuracy: reported), accuracyClasses: classes)
            #expect(fix.horizontalAccuracy == radius && fix.horizontalAccuracyIsEstimated, "class \(reported)")
            #expect(fix.horizontalAccuracy > AccuracyLevel.room.horizontalAccuracy, "class \(reported) claims room accuracy")
        }
        let wifi = try GeoClueFix.location(from: Self.properties(accuracy: 42), accuracyClasses: classes)
        #expect(wifi.horizontalAccuracy == 42 && !wifi.horizontalAccuracyIsEstimated)
        // A user whose receiver earns it maps the best class finer.
        let earned = try GeoClueFix.location(from: Self.properties(accuracy: 0), accuracyClasses: [0: 3])
        #expect(earned.horizontalAccuracy == 3)
        // Without a class for 0, GeoClue's 0 is unknown: nothing finer than the coarsest class.
        let unknown = try GeoClueFix.location(from: Self.properties(accuracy: 0), accuracyClasses: [:])
        #expect(unknown.horizontalAccuracy == 300 && unknown.horizontalAccuracyIsEstimated)
        // −1 is GeoClue's own "accuracy unknown" (an NMEA feed of RMC alone): a fix of the coarsest class.
        let noHDOP = try GeoClueFix.location(from: Self.properties(accuracy: -1), accuracyClasses: classes)
        #expect(noHDOP.horizontalAccuracy == 300 && noHDOP.horizontalAccuracyIsEstimated)
    }

    @Test("absurd values reject the fix, naming the property", arguments: [
        ("Latitude", Self.properties(latitude: .nan)), ("Latitude", Self.properties(latitude: 90.0001)),
        ("Longitude", Self.properties(longitude: -.infinity)), ("Longitude", Self.properties(longitude: 180.5)),
        ("Accuracy", Self.properties(accuracy: -2)), ("Accuracy", Self.properties(accuracy: -0.5)), ("Accuracy", Self.properties(accuracy: .infinity)),
        ("Accuracy", Self.properties(accuracy: .nan)), ("Altitude", Self.properties(altitude: .nan)),
        ("Speed", Self.properties(speed: .infinity)), ("Heading", Self.properties(heading: .nan)),
        ("Timestamp", Self.properties(timestamp: (1, 1_000_000))),
    ])
    func absurd(property: String, properties: [String: DBusValue]) {
        #expect(throws: GeoClueFix.Rejection.self) { try GeoClueFix.location(from: properties, accuracyClasses: GeoClueConfiguration.nmeaAccuracyClasses) }
        do {
            _ = try GeoClueFix.location(from: properties, accuracyClasses: GeoClueConfiguration.nmeaAccuracyClasses)
        } catch {
            #expect(error.property == property)
        }
    }

    @Test("missing or mistyped coordinates reject the fix")
    func mistyped() {
        var missing = Self.properties()
        missing["Latitude"] = nil
        var text = Self.properties()
        text["Longitude"] = .variant(.string("13.4"))
        var badStamp = Self.properties()
        badStamp["Timestamp"] = .variant(.uint64(5))
        // A peer's structure of other numeric types: no negative, non-finite or negative-microsecond time.
        let otherStamps: [[DBusValue]] = [
            [.int64(-5), .uint64(0)], [.double(.nan), .uint64(0)], [.double(-.infinity), .uint64(0)],
            [.double(.infinity), .uint64(0)], [.uint64(1_700_000_000), .int32(-1)], [.uint64(1_700_000_000), .double(.nan)],
        ]
        let stamped = otherStamps.map { parts -> [String: DBusValue] in
            var properties = Self.properties()
            properties["Timestamp"] = .variant(.structure(parts))
            return properties
        }
        for properties in [missing, text, badStamp] + stamped {
            #expect(throws: GeoClueFix.Rejection.self) { try GeoClueFix.location(from: properties, accuracyClasses: GeoClueConfiguration.nmeaAccuracyClasses) }
        }
    }

    @Test("out-of-range speed and heading are unknown, a heading of 360 is north")
    func ranges() throws {
        #expect(try GeoClueFix.location(from: Self.properties(speed: -3, heading: 400), accuracyClasses: GeoClueConfiguration.nmeaAccuracyClasses).speed == nil)
        #expect(try GeoClueFix.location(from: Self.properties(heading: 400), accuracyClasses: GeoClueConfiguration.nmeaAccuracyClasses).course == nil)
        #expect(try GeoClueFix.location(from: Self.properties(heading: 360), accuracyClasses: GeoClueConfiguration.nmeaAccuracyClasses).course == 0)
    }

    @Test("a fix's age: from GeoClue's timestamp within the hour before now, else zero")
    func age() {
        #expect(GeoClueSession.age(of: 1000, now: 1002.5) == .milliseconds(2500))
        #expect(GeoClueSession.age(of: 1000, now: 999) == .zero, "from the future: zero")
        #expect(GeoClueSession.age(of: 1000, now: 1000 + 7200) == .zero, "a clock far off says nothing")
    }

    @Test("the accuracy level for each power mode: coarse modes never ask for exact")
    func levels() {
        #expect(PowerMode.allCases.map(GeoClueAccuracyLevel.init) == [.city, .neighborhood, .street, .exact, .exact])
    }

    @Test("a LocationUpdated is GeoClue's only from GeoClue's unique name, for this client, naming an object path")
    func locationUpdatedFromGeoClueOnly() {
        let client = "/org/freedesktop/GeoClue2/Client/1"
        func signal(sender: String = ":1.7", path: String = client, _ location: DBusValue) -> DBusConnection.Signal {
            DBusConnection.Signal(
                sender: sender, path: path, interface: "org.freedesktop.GeoClue2.Client", member: "LocationUpdated",
                arguments: [.objectPath("/"), location])
        }
        let genuine = signal(.objectPath("/org/freedesktop/GeoClue2/Location/3"))
        #expect(GeoClueSession.locationPath(of: genuine, client: client, owner: ":1.7") == "/org/freedesktop/GeoClue2/Location/3")
        #expect(GeoClueSession.locationPath(of: signal(.string("x")), client: client, owner: ":1.7") == nil, "a string is no object path")
        #expect(GeoClueSession.locationPath(of: signal(sender: ":1.9", .objectPath("/a")), client: client, owner: ":1.7") == nil, "another peer's")
        #expect(GeoClueSession.locationPath(of: signal(path: "/org/freedesktop/GeoClue2/Client/2", .objectPath("/a")), client: client, owner: ":1.7") == nil)
    }

    @Test("a{sv} as a dictionary; anything else is none")
    func dictionaries() {
        let value = DBusValue.array([.dictionaryEntry(.string("A"), .variant(.double(1))), .dictionaryEntry(.string("B"), .variant(.uint32(2)))])
        #expect(value.stringKeyedDictionary?["B"]?.number == 2)
        #expect(DBusValue.array([.dictionaryEntry(.uint32(1), .double(1))]).stringKeyedDictionary == nil)
        #expect(DBusValue.double(1).stringKeyedDictionary == nil)
        #expect(DBusValue.variant(.variant(.objectPath("/a"))).text == "/a")
    }

    @Test("a message of more values than any GeoClue answer has (a byte array any local peer may send the source) is refused, not read into millions of values")
    func aMessageOfTooManyValuesIsRefused() throws {
        func signal(bytes count: Int) throws -> OpaquePointer {
            let message = try #require(dbus_message_new_signal("/a", "org.example.Peer", "Flood"))
            try DBusMessageCoding.append([.array(Array(repeating: .byte(7), count: count))], to: message)
            return message
        }
        let flood = try signal(bytes: DBusMessageCoding.maximumValues)
        defer { dbus_message_unref(flood) }
        #expect(throws: DBusFailure.self) { try DBusMessageCoding.arguments(of: flood) }
        let small = try signal(bytes: 100)
        defer { dbus_message_unref(small) }
        #expect(try DBusMessageCoding.arguments(of: small) == [.array(Array(repeating: .byte(7), count: 100))])
    }
}
