import LocationEngineTestKit
@testable import NMEA
import Testing

@Suite("Allocation-free number parsing")
struct DecimalParsingTests {
    @Test func matchesTheStandardLibraryOnRandomValues() {
        var generator = SplitMix64(seed: 0xDEC1_3A15)  // seeded: a failure replays
        for _ in 0..<20_000 {
            let decimals = Int.random(in: 0...7, using: &generator)
            let integer = Int.random(in: 0...99_999, using: &generator)
            let fraction = Int.random(in: 0..<Int(NMEADecimal.powersOfTen(decimals)), using: &generator)
            let sign = Bool.random(using: &generator) ? "-" : ""
            var text = sign + String(integer)
            if decimals > 0 {
                let digits = String(fraction)
                text += "." + String(repeating: "0", count: decimals - digits.count) + digits
            }
            let parsed = Array(text.utf8).withUnsafeBytes { NMEADecimal($0)?.value }
            #expect(parsed == Double(text), "\(text)")
        }
    }

    @Test(arguments: ["", "-", ".", "1.2.3", "1e5", "12a", "--1", " 1", "1234567890123456"])
    func rejectsWhatIsNotADecimal(text: String) {
        #expect(Array(text.utf8).withUnsafeBytes { NMEADecimal($0) } == nil)
    }

    @Test(arguments: ["+5", "-0028", "00016", ".5", "5."])
    func acceptsReceiverSpellings(text: String) {
        #expect(Array(text.utf8).withUnsafeBytes { NMEADecimal($0) } != nil)
    }
}
