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

    @Test("--fix-rate runs from a fix every 1,000 s to 100 a second; below, above or no number, it is refused with a message, never a trap")
    func fixRateRange() throws {
        #expect(try LocationServerCommand.parse(["--fix-rate", "0.001"]).sourceChoices() == [.synthetic(scenario: "drive", fixRate: 0.001, seed: 42)])
        for rate in ["1e-300", "0.0009", "0", "-1", "100.5", "nan", "inf"] {
            #expect(throws: (any Error).self, "\(rate)") { _ = try LocationServerCommand.parse(["--fix-rate", rate]).sourceChoices() }
        }
    }

    @Test("the synthetic receiver's settings beside another source, or a GeoClue desktop ID without GeoClue, are refused naming them, not dropped")
    func settingsOfAnAbsentSourceAreRefused() throws {
        for arguments in [
            ["--gpsd", "127.0.0.1:2947", "--fix-rate", "1000"], ["--static", "52.52,13.405,25", "--scenario", "nope"],
            ["--geoclue", "--seed", "7"], ["--gpsd", "127.0.0.1:2947", "--scenario", "walk", "--fix-rate", "2"],
        ] {
            #expect("\(arguments)") { _ = try LocationServerCommand.parse(arguments) } throws: { error in
                let message = "\(LocationServerCommand.message(for: error))"
                return message.contains("set the synthetic receiver") && arguments.filter { $0.hasPrefix("--") && $0 != "--gpsd" && $0 != "--static" && $0 != "--geoclue" }.allSatisfy(message.contains)
            }
        }
        #expect { _ = try LocationServerCommand.parse(["--geoclue-desktop-id", "x"]) } throws: {
            "\(LocationServerCommand.message(for: $0))".contains("give it with --geoclue")
        }
        #expect(try LocationServerCommand.parse(["--geoclue", "--geoclue-desktop-id", "x"]).sourceChoices() == [.geoclue(desktopId: "x")])
        #expect(try LocationServerCommand.parse(["--scenario", "walk", "--seed", "7"]).sourceChoices() == [.synthetic(scenario: "walk", fixRate: 1, seed: 7)])
    }

    @Test("--nmea names a file to read: a directory is refused with a message saying so")
    func nmeaDirectoryRefused() throws {
        #expect {
            _ = try LocationServerCommand.parse(["--nmea", "/tmp"]).sourceChoices()
        } throws: { error in
            "\(error)".contains("it is a directory")
        }
    }

    @Test("--exit-report is checked at start: a directory, or a file in a directory that does not exist, is refused before the server runs")
    func exitReportCheckedAtStart() throws {
        #expect(throws: (any Error).self) { _ = try LocationServerCommand.parse(["--exit-report", "/tmp"]) }
        #expect(throws: (any Error).self) { _ = try LocationServerCommand.parse(["--exit-report", "/nonexistent/report.json"]) }
        _ = try LocationServerCommand.parse(["--exit-report", "/tmp/location-server-report-\(UInt32.random(in: 0...UInt32.max)).json"])
    }

    @Test("--unix-socket in a directory that does not exist is refused at start, naming the directory")
    func unixSocketDirectoryChecked() {
        #expect { _ = try LocationServerCommand.parse(["--unix-socket", "/nonexistent/location.sock"]) } throws: {
            "\(LocationServerCommand.message(for: $0))".contains("the directory /nonexistent does not exist")
        }
    }

    @Test("a negative --port or --linger is read as the option's value and refused with its range, not taken for a missing value")
    func negativeValuesAreValues() {
        #expect { _ = try LocationServerCommand.parse(["--port", "-1"]) } throws: { "\(LocationServerCommand.message(for: $0))".contains("0...65535") }
        #expect { _ = try LocationServerCommand.parse(["--linger", "-1s"]) } throws: { !"\(LocationServerCommand.message(for: $0))".contains("Missing value") }
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
