import LocationEngineTestKit
import NMEA
import Testing

@Suite("Robustness against corrupted input")
struct RobustnessTests {
    @Test func mutatedSentencesInRandomChunksNeverTrapAndStayBounded() {
        var random = SplitMix64(seed: 0x4E4D_4541)
        let clean = Array(Sentences.movingReceiver.utf8)
        let alphabet = Array("$*,.-0123456789ABCDEFGNPSWVT\r\n\u{0}\u{FF}".utf8)
        for _ in 0..<300 {
            var bytes = clean
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[position] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet.randomElement(using: &random)!, at: position)
                }
            }
            var decoder = NMEAStreamDecoder(maximumLineLength: 128)
            var epochs = 0
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + Int.random(in: 1...97, using: &random))
                decoder.feed(bytes[offset..<end]) { _ in epochs += 1 }
                #expect(decoder.bufferedByteCount <= decoder.maximumLineLength)
                offset = end
            }
            decoder.finish { _ in epochs += 1 }
            let statistics = decoder.statistics
            #expect(statistics.epochs == epochs)
            #expect(statistics.sentences + statistics.totalErrors <= bytes.filter { $0 == 0x24 }.count + 1)
        }
    }

    @Test func randomBytesAreDiscardedWithoutTrapping() {
        var random = SplitMix64(seed: 42)
        var decoder = NMEAStreamDecoder()
        var epochs = 0
        for _ in 0..<200 {
            let chunk = (0..<Int.random(in: 0...512, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            decoder.feed(chunk) { _ in epochs += 1 }
            #expect(decoder.bufferedByteCount <= decoder.maximumLineLength)
        }
        decoder.finish { _ in epochs += 1 }
        #expect(decoder.statistics.sentences == 0)
        #expect(decoder.statistics.discardedBytes > 0)
    }
}
