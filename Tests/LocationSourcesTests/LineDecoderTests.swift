import NIOCore
import NIOEmbedded
import Testing
@testable import LocationSources

/// The bounded line framing over NIOExtras' splitter, on an embedded channel.
struct LineDecoderTests {
    private func frames(_ chunks: [String], maximum: Int) throws -> [String] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(BoundedLineDecoder(maximumLineLength: maximum)))
        var result: [String] = []
        for chunk in chunks {
            try channel.writeInbound(ByteBuffer(string: chunk))
            while let frame = try channel.readInbound(as: LineFrame.self) {
                switch frame {
                case .line(let line): result.append(String(buffer: line))
                case .oversized(let count): result.append("<\(count)>")
                }
            }
        }
        _ = try channel.finish()
        return result
    }

    @Test func splitsLinesAcrossChunksAndDropsCarriageReturns() throws {
        #expect(try frames(["ab", "c\r\nde", "f\ng"], maximum: 10) == ["abc", "def"])
    }

    @Test func anOversizedLineIsReportedOnceAndTheNextLineSurvives() throws {
        let long = String(repeating: "x", count: 25)
        #expect(try frames(["ok\n", long, long, "\nnext\n"], maximum: 10) == ["ok", "<51>", "next"])
        #expect(try frames(["0123456789AB\nfine\n"], maximum: 10) == ["<12>", "fine"])
    }
}
