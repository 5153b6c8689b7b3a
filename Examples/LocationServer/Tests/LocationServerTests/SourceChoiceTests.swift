@testable import LocationServer
import LocationEngine
import LocationEngineTestKit
import LocationSources
import LocationSourcesGeoClue
import Testing

/// `--static LAT,LON,ACC`: a position that does not move, checked before the server starts.
@Suite struct SourceChoiceTests {
    @Test func aStaticPositionIsThreeNumbers() throws {
        #expect(try SourceChoice.fixed(parsing: "52.52, 13.405,25") == .fixed(try FixedLocation(latitude: 52.52, longitude: 13.405, accuracy: 25)))
    }

    @Test(arguments: ["52.52,13.405", "52.52,13.405,25,1", "north,13.405,25", "95,13.405,25", "52.52,13.405,-3", "52.52,nan,25", ""])
    func anythingElseIsRefusedWithTheReason(text: String) {
        #expect(throws: (any Error).self) { try SourceChoice.fixed(parsing: text) }
    }
}

/// The source options combine: a receiver, GeoClue and a fixed position, in that order, as the engine's sources.
@Suite struct SourceCombinationTests {
    @Test func sourcesCombineInTheEnginesOrder() throws {
        let command = try LocationServerCommand.parse(["--static", "52.52,13.405,25", "--geoclue", "--gpsd", "127.0.0.1:2947"])
        let choices = try command.sourceChoices()
        #expect(choices.count == 3)
        #expect(choices[1] == .geoclue(desktopId: "location-server"))
        #expect(choices[2] == .fixed(try FixedLocation(latitude: 52.52, longitude: 13.405, accuracy: 25)))
        guard case .gpsd = choices[0] else {
            Issue.record("the receiver comes first, got \(choices[0])")
            return
        }
    }

    @Test func noSourceNamedIsTheSyntheticReceiver() throws {
        let choices = try LocationServerCommand.parse([]).sourceChoices()
        #expect(choices == [.synthetic(scenario: "drive", fixRate: 1, seed: 42)])
    }

    @Test("--linger takes up to a day; beyond, or malformed, it is refused with a message, never a trap")
    func lingerRange() throws {
        #expect(try LocationServerCommand.parse(["--linger", "500ms"]).lingerDuration() == .milliseconds(500))
        #expect(try LocationServerCommand.parse(["--linger", "24h"]).lingerDuration() == .seconds(86_400))
        for linger in ["1e17", "100000000000000000", "25h", "0x10", "-5s"] {
            #expect(throws: (any Error).self, "\(linger)") { _ = try LocationServerCommand.parse(["--linger", linger]) }
        }
    }

    @Test func twoReceiversAreRefused() {
        #expect(throws: (any Error).self) { try LocationServerCommand.parse(["--gpsd", "127.0.0.1:2947", "--nmea", "/dev/null"]).sourceChoices() }
    }

    @Test("with GeoClue among the sources, GeoClue's refusal is the engine's authorization (a 403, not a failure); without it, the engine's default")
    func geoclueDecidesAuthorization() throws {
        let geoclue = GeoClueLocationSource(GeoClueConfiguration(desktopId: "location-server"))
        let provider = try #require(LocationServerCommand.authorization(for: [ScriptedLocationSource(), geoclue]))
        #expect(provider as AnyObject === geoclue.authorization)
        #expect(LocationServerCommand.authorization(for: [ScriptedLocationSource()]) == nil)
    }
}
