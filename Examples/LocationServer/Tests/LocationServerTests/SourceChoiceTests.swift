@testable import LocationServer
import LocationSources
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
