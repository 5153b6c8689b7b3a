import NMEA
import Testing

@Suite("Stream decoding: framing, resynchronisation, bounded memory")
struct StreamDecoderTests {
    @Test func decodesEpochsFromAWholeStream() {
        let (epochs, decoder) = Sentences.decode(Sentences.movingReceiver)
        #expect(epochs.count == 3)
        #expect(decoder.statistics.sentences == 21)
        #expect(decoder.statistics.totalErrors == 0)
        #expect(decoder.statistics.epochs == 3)
        #expect(decoder.statistics[sentence: .gsv] == 6)
    }

    @Test func everySplitPointGivesTheSameResult() {
        let bytes = Array(Sentences.movingReceiver.utf8)
        let (reference, referenceDecoder) = Sentences.decode(Sentences.movingReceiver)
        for split in 0...bytes.count {
            var decoder = NMEAStreamDecoder()
            var epochs: [NMEAEpoch] = []
            decoder.feed(bytes[..<split]) { epochs.append($0) }
            decoder.feed(bytes[split...]) { epochs.append($0) }
            decoder.finish { epochs.append($0) }
            #expect(epochs == reference, "split at \(split)")
            #expect(decoder.statistics == referenceDecoder.statistics, "split at \(split)")
        }
    }

    @Test func byteByByteFeedingGivesTheSameResult() {
        let (reference, _) = Sentences.decode(Sentences.movingReceiver)
        var decoder = NMEAStreamDecoder()
        var epochs: [NMEAEpoch] = []
        for byte in Sentences.movingReceiver.utf8 {
            decoder.feed(CollectionOfOne(byte)) { epochs.append($0) }
        }
        decoder.finish { epochs.append($0) }
        #expect(epochs == reference)
    }

    @Test func concatenatedSentenceIsCountedAndTheNextOneSurvives() {
        // A GGA cut short and run into the next sentence, as the Magellan Triton 400 does.
        let text = "$GPGGA,030130" + Sentences.nmea("GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A")
        let (epochs, decoder) = Sentences.decode(text)
        #expect(decoder.statistics[error: .truncated] == 1)
        #expect(decoder.statistics[sentence: .gll] == 1)
        #expect(epochs.count == 1)
        #expect(abs((epochs.first?.latitude ?? 0) - 26.636213333) < 1e-6)
    }

    @Test func completeSentencesWithoutNewlineBetweenThemAreBothDecoded() {
        let first = Sentences.nmea("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1").dropLast(1)  // "\r\n" is one Character
        let text = String(first) + Sentences.nmea("GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A")
        let (_, decoder) = Sentences.decode(text)
        #expect(decoder.statistics.sentences == 2)
        #expect(decoder.statistics.totalErrors == 0)
    }

    @Test func badChecksumIsCountedAndDropped() {
        let text = Sentences.corrupted("GPGSV,3,3,11,24,51,098,55,30,33,110,50,31,60,230,47")
            + Sentences.nmea("GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A")
        let (epochs, decoder) = Sentences.decode(text)
        #expect(decoder.statistics[error: .badChecksum] == 1)
        #expect(decoder.lastError == NMEAError(.badChecksum, sentence: .gsv))
        #expect(epochs.count == 1)
        #expect(epochs.first?.satellites.isEmpty == true)
    }

    @Test func tenMegabyteLineIsBoundedAndCounted() {
        var decoder = NMEAStreamDecoder()
        var epochs: [NMEAEpoch] = []
        let chunk = [UInt8](repeating: 0x41, count: 64 * 1024)
        decoder.feed(Array("$GPGGA,".utf8)) { epochs.append($0) }
        var largestBuffer = 0
        for _ in 0..<160 {  // 10 MiB without a newline
            decoder.feed(chunk) { epochs.append($0) }
            largestBuffer = max(largestBuffer, decoder.bufferedByteCount)
        }
        decoder.feed(Array(Sentences.nmea("GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A").utf8)) { epochs.append($0) }
        decoder.finish { epochs.append($0) }
        #expect(largestBuffer <= decoder.maximumLineLength)
        #expect(decoder.statistics[error: .lineTooLong] == 1)
        #expect(decoder.statistics.discardedBytes >= 10 * 1024 * 1024)
        #expect(epochs.count == 1, "the sentence after the garbage is decoded")
    }

    @Test func overlongLineInsideOneChunkIsCounted() {
        let text = "$GPGGA," + String(repeating: "9", count: 300) + "\r\n" + Sentences.nmea("GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A")
        let (epochs, decoder) = Sentences.decode(text, decoder: NMEAStreamDecoder(maximumLineLength: 256))
        #expect(decoder.statistics[error: .lineTooLong] == 1)
        #expect(epochs.count == 1)
    }

    @Test(arguments: [Int.max, 1 << 40, Int.min])
    func anAbsurdLineLengthIsClampedNotAllocated(length: Int) {
        let decoder = NMEAStreamDecoder(maximumLineLength: length)
        #expect(decoder.maximumLineLength == (length < 0 ? 16 : 65_535))
        guard length > 0 else { return }
        let (epochs, _) = Sentences.decode(Sentences.nmea("GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A"), decoder: decoder)
        #expect(epochs.count == 1)
    }

    @Test func noiseBetweenSentencesIsSkippedAndCounted() {
        let text = "# a comment\r\n\u{0}\u{1}garbage" + Sentences.movingReceiver + "\r\n\r\n"
        let (epochs, decoder) = Sentences.decode(text)
        #expect(epochs.count == 3)
        #expect(decoder.statistics.discardedBytes == "# a comment".utf8.count + 9)
        #expect(decoder.statistics.totalErrors == 0)
    }

    @Test func absurdLatitudeIsATypedCountedError() {
        let text = Sentences.nmea("GPGGA,123519.00,9500.000,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let (epochs, decoder) = Sentences.decode(text)
        #expect(epochs.isEmpty)
        #expect(decoder.statistics[error: .outOfRange] == 1)
        #expect(decoder.lastError == NMEAError(.outOfRange, sentence: .gga, field: 2))
    }

    @Test func unterminatedLastLineIsDecodedAtFinishWhenComplete() {
        let complete = String(Sentences.nmea("GPGLL,2638.1728,N,08011.3893,W,030131.000,A,A").dropLast(1))  // "\r\n" is one Character
        let (epochs, decoder) = Sentences.decode(complete)
        #expect(epochs.count == 1)
        #expect(decoder.statistics.totalErrors == 0)

        let (cut, cutDecoder) = Sentences.decode("$GPGLL,2638.1728,N,080")
        #expect(cut.isEmpty)
        #expect(cutDecoder.statistics[error: .truncated] == 1)
    }

    @Test func unsupportedSentencesAreCounted() {
        let text = Sentences.nmea("PFST,FOM,6") + Sentences.nmea("GPTXT,01,01,02,ANTSTATUS=OK")
        let (_, decoder) = Sentences.decode(text)
        #expect(decoder.statistics[error: .unsupportedSentence] == 2)
    }
}
