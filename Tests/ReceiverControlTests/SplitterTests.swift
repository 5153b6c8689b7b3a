import ReceiverControl
import Testing

/// One byte stream, NMEA text and UBX frames interleaved with noise, split apart.
struct SplitterTests {
    private func split(_ chunks: [[UInt8]], into splitter: inout ReceiverStreamSplitter) -> [ReceiverStreamSplitter.Piece] {
        var pieces: [ReceiverStreamSplitter.Piece] = []
        for chunk in chunks { splitter.feed(chunk) { pieces.append($0) } }
        return pieces
    }

    @Test func framesAndLinesAreSeparatedWhateverTheChunking() {
        let gga = Array("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n".utf8)
        let ack = UBXReply.acknowledged(messageClass: 6, messageID: 8).frame
        let pmtk = PMTKReply.acknowledgement(command: 161, flag: .succeeded).packet.bytes
        let stream = [0x00, 0xFF] + gga + ack.bytes + Array("noise".utf8) + pmtk + [0xB5, 0x00] + gga
        let expected: [ReceiverStreamSplitter.Piece] = [.line(gga), .ubx(ack), .line(pmtk), .line(gga)]
        for chunkSize in [1, 3, 7, stream.count] {
            var splitter = ReceiverStreamSplitter()
            let chunks = stride(from: 0, to: stream.count, by: chunkSize).map { Array(stream[$0..<min($0 + chunkSize, stream.count)]) }
            #expect(split(chunks, into: &splitter) == expected, "chunks of \(chunkSize)")
            #expect(splitter.statistics.discardedBytes == 2 + 5 + 2)
            #expect(splitter.bufferedByteCount == 0)
        }
    }

    @Test func aCutStreamDropsTheFrameItWasInTheMiddleOf() {
        // The old connection ended inside a UBX frame announcing 200 bytes; the new one begins with a version reply.
        let partial: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 200, 0] + Array(repeating: 0x11, count: 20)
        let version = Array("$PMTK705,AXN_2.31_3339_13101700,5632,PA6H,1.0*6B\r\n".utf8)
        var splitter = ReceiverStreamSplitter()
        #expect(split([partial], into: &splitter).isEmpty && splitter.bufferedByteCount == partial.count)
        splitter.streamCut()
        #expect(split([version], into: &splitter) == [.line(version)], "the new connection's first line is read")
        #expect(splitter.statistics.discardedBytes == partial.count)
        var uncut = ReceiverStreamSplitter()
        #expect(split([partial, version], into: &uncut).isEmpty, "without the cut the frame swallows the reply")
    }

    @Test func aFrameInterruptingALineIsStillFound() {
        let ack = UBXReply.notAcknowledged(messageClass: 6, messageID: 0x3B).frame
        let stream = Array("$GPRMC,12".utf8) + ack.bytes + Array("$GPTXT,01*00\r\n".utf8)
        var splitter = ReceiverStreamSplitter()
        #expect(split([stream], into: &splitter) == [.ubx(ack), .line(Array("$GPTXT,01*00\r\n".utf8))])
        #expect(splitter.statistics.discardedBytes == 9)
    }

    @Test func aGarbledFrameIsReportedAndAnAbsurdLengthResynchronises() {
        var garbled = UBXReply.acknowledged(messageClass: 6, messageID: 8).frame.bytes
        garbled[7] ^= 0x01
        let line = Array("$PMTK001,0,3*30\r\n".utf8)
        // A sync followed by a length of 0xFFFF is noise; the `$` right after it still starts a line.
        let stream = garbled + [0xB5, 0x62, 0x01, 0x02, 0xFF, 0xFF] + line
        var splitter = ReceiverStreamSplitter()
        #expect(split([stream], into: &splitter) == [.garbledFrame, .line(line)])
        #expect(splitter.statistics.garbledFrames == 1)
    }

    @Test("a frame whose length byte was corrupted, or that lost a byte in transit, does not swallow what follows it")
    func aGarbledFrameGivesBackWhatItSwallowed() {
        let gga = Array("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n".utf8)
        // The length byte 0x02 read as 0x42: the frame would take 74 bytes, the two lines after it among them.
        var longer = UBXReply.acknowledged(messageClass: 6, messageID: 8).frame.bytes
        longer[4] = 0x42
        for chunkSize in [1, 5, 1000] {
            var splitter = ReceiverStreamSplitter()
            let stream = longer + gga + gga
            let chunks = stride(from: 0, to: stream.count, by: chunkSize).map { Array(stream[$0..<min($0 + chunkSize, stream.count)]) }
            #expect(split(chunks, into: &splitter) == [.garbledFrame, .line(gga), .line(gga)], "chunks of \(chunkSize)")
        }
        // A frame one byte short: the acknowledgement after it completes it, and is found again.
        let nav: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 4, 0, 1, 2, 3, 0x3A, 0x4B]
        let ack = UBXReply.acknowledged(messageClass: 6, messageID: 0x11).frame
        var splitter = ReceiverStreamSplitter()
        #expect(split([nav + ack.bytes + gga], into: &splitter) == [.garbledFrame, .ubx(ack), .line(gga)])
    }

    @Test func memoryStaysBoundedOnEndlessText() {
        var splitter = ReceiverStreamSplitter(maximumLineLength: 64)
        let endless = [UInt8(ascii: "$")] + Array(repeating: UInt8(ascii: "A"), count: 10_000)
        #expect(split([endless], into: &splitter).isEmpty)
        #expect(splitter.bufferedByteCount < 64)
    }

    @Test func anAbsurdLineBoundIsTakenAsTheLongestLineAndStillBoundsMemory() {
        #expect(ReceiverStreamSplitter(maximumLineLength: .max).maximumLineLength == 65_535)
        #expect(ReceiverStreamSplitter(maximumLineLength: .min).maximumLineLength == 16)
        var splitter = ReceiverStreamSplitter(maximumLineLength: .max)
        let endless = [UInt8(ascii: "$")] + Array(repeating: UInt8(ascii: "A"), count: 200_000)
        #expect(split([endless], into: &splitter).isEmpty)
        #expect(splitter.bufferedByteCount < 65_535)
        #expect(splitter.statistics.discardedBytes >= 200_001 - 65_535)
    }
}
