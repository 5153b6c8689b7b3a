import DequeModule
import NMEA

/// Dates a receiver's output at when the receiver sent it, by the receiver's own clock where its sentences
/// tell it, rather than at when the source read it.
///
/// The driver judges a receiver by when its output comes: output after a command says it is still running, a
/// gap longer than the setting's interval says a slower setting. Read times say the same as long as the
/// reader keeps up. A reader held up — its thread starved on a loaded machine, its event loop busy elsewhere —
/// reads what queued meanwhile all at once: output sent before a command would read as sent after it, and the
/// gap before the burst as a power-save cycle.
///
/// Each timed sentence (GGA, RMC, GNS, ZDA, GLL) carries the time of its epoch. Read at `r` with receiver time
/// `t`, its offset `r − t` is the line's latency plus the (fixed) difference of the two clocks; the least
/// offset among the recent epochs is the latency of a line read at once. An epoch's lag is its first timed
/// line's offset less that least one, and the epoch is dated at that line's read time less its lag: an epoch
/// read late is dated at when it would have been read at once. Its other lines (its other timed sentences,
/// and lines without a time: GSA, GSV, UBX frames) take its lag too, and come no later than ``epochSpan``
/// after it: a reader held up in the middle of an epoch reads the rest of it late, and those lines were on the
/// line already. Dates never go backwards: a line dated at read time (below) holds the lines read after it
/// to its date.
///
/// A line whose time is the last one's belongs to the same epoch — unless a sentence of its talker and type
/// already carried that time: then the receiver repeats its last fix's time across epochs, which says nothing
/// of when the line was sent, and it (with the lines after it) is dated at read time. So is output after a
/// timed sentence whose time is empty (a receiver that has not set its clock). Output read more than
/// ``longestLag`` after its epoch's first line takes the epoch's lag without the cap. A line whose checksum is
/// wrong carries no time: a digit of it may have been garbled on the line.
///
/// The least offset is taken over the epochs read in the last ``windowSpan``, so that the clocks' drift, over
/// a receiver's long sleep too, and a receiver clock that was set (a jump) fade out. An epoch whose lag
/// exceeds ``longestLag`` is taken as such a jump (or a reader held up for that long, which this cannot tell)
/// and starts the reckoning again from itself, read time and date the same. A time that goes back dates
/// nothing either, and reckoning starts again from it. A receiver that dates nothing is dated at read time.
/// The receiver's clock is taken to run at the host's rate (the sentences carry UTC: a leap second makes the
/// next epochs look read a second late, so dated a second early, until the epochs before it leave the window). A
/// ZDA that carries the coming second (a receiver stamping it with the next pulse) starts the epoch the next
/// GGA joins: that GGA is dated up to a second early, never late.
///
/// A pure value: the NMEA source keeps one per receiver link, no clock of its own.
///
/// The least offset over a span of reads is a sliding-window minimum, kept by hand in a `Deque` (no package
/// offers one): each epoch's offset drops the later-read ones that are not less than it, which can no longer
/// be the least while it counts.
struct OutputDating: Sendable, Hashable {
    /// The offsets kept, at most (a bound on memory: offsets that rise with every epoch, as the clocks'
    /// drift makes them, are all kept until they age out).
    static let window = 256
    /// How long an epoch's offset counts towards the least one: longer than the slowest setting's interval
    /// (a minute) and the longest lag together, so that an epoch is always measured against the one before;
    /// short enough that the clocks' drift (50 ppm: 15 ms) is no lag.
    static let windowSpan = Duration.seconds(300)
    /// The longest lag taken as a late read; beyond it, a jump of the receiver's clock.
    static let longestLag = Duration.seconds(10)
    /// The longest an epoch's lines take to send, after its first (an epoch of NMEA at 9600 baud: the driver's
    /// own allowance for output sent before a command).
    static let epochSpan = Duration.milliseconds(500)

    /// What an NMEA sentence of a timed type says of its epoch.
    struct Stamp: Sendable, Hashable {
        /// Seconds since midnight UTC; `nil` when the sentence's time is empty or malformed.
        var timeOfDay: Double?
        /// The sentence's talker and type (`GPGGA`, `GNRMC`, …) as one number.
        var sentence: UInt64
    }

    /// An epoch's offset and when it was read.
    private struct Offset: Sendable, Hashable {
        var readAt: Duration
        var offset: Duration
    }

    /// The current epoch: its time of day, the midnights passed since the reckoning started, and the
    /// sentences that carried its time so far.
    private struct Epoch: Sendable, Hashable {
        var timeOfDay: Double
        var days: Int
        var sentences: [UInt64]
    }

    /// The output of the current epoch while it lasts: when its first line was read, and its date.
    private struct Span: Sendable, Hashable {
        var firstRead: Duration
        var date: Duration
    }

    /// The recent epochs' offsets that may yet be the least, the oldest (and least) first, rising.
    private var offsets: Deque<Offset> = []
    private var epoch: Epoch?
    private var span: Span?
    /// The lag of the last timed line.
    private var lag = Duration.zero
    /// The last date given.
    private var lastDate: Duration?

    /// The date of output read at `readAt`, a timed sentence stamped `stamp` (`nil`: any other line).
    mutating func date(readAt: Duration, stamp: Stamp?) -> Duration {
        if let stamp {
            if let timeOfDay = stamp.timeOfDay {
                reckon(readAt: readAt, timeOfDay: timeOfDay, sentence: stamp.sentence)
            } else {
                // An epoch the receiver does not date: the last one's output is over, and this one's is dated
                // at read time.
                lag = .zero
                span = nil
            }
        }
        var date = readAt - lag
        if let span, readAt - span.firstRead <= Self.longestLag { date = min(date, span.date + Self.epochSpan) }
        date = max(lastDate ?? .zero, date)
        lastDate = date
        return date
    }

    private mutating func reckon(readAt: Duration, timeOfDay: Double, sentence: UInt64) {
        guard var current = epoch else { return restart(readAt: readAt, timeOfDay: timeOfDay, sentence: sentence) }
        if timeOfDay == current.timeOfDay {
            if current.sentences.contains(sentence) {
                // The receiver repeats its last time: this line says nothing of when it was sent.
                lag = .zero
                span = nil
            } else {
                // The same epoch's next sentence.
                epoch?.sentences.append(sentence)
            }
            return
        }
        if timeOfDay < current.timeOfDay - 43_200 {
            // Past midnight the time of day starts again from zero: a fall of more than half a day is a new day.
            current.days += 1
        } else if timeOfDay < current.timeOfDay {
            // Gone back: it dates nothing, and reckoning starts again from it.
            return restart(readAt: readAt, timeOfDay: timeOfDay, sentence: sentence)
        }
        let offset = readAt - Self.receiverTime(days: current.days, timeOfDay: timeOfDay)
        while let oldest = offsets.first, readAt - oldest.readAt > Self.windowSpan { offsets.removeFirst() }
        let least = offsets.first?.offset ?? offset
        if offset - least > Self.longestLag || least - offset > Self.longestLag {
            // A jump of the receiver's clock: reckoned again from this line.
            return restart(readAt: readAt, timeOfDay: timeOfDay, sentence: sentence)
        }
        while let newest = offsets.last, newest.offset >= offset { offsets.removeLast() }
        if offsets.count == Self.window { offsets.removeFirst() }
        offsets.append(Offset(readAt: readAt, offset: offset))
        lag = max(.zero, offset - least)
        span = Span(firstRead: readAt, date: readAt - lag)
        current.timeOfDay = timeOfDay
        current.sentences.removeAll(keepingCapacity: true)
        current.sentences.append(sentence)
        epoch = current
    }

    /// Reckons from this line alone: it dates nothing.
    private mutating func restart(readAt: Duration, timeOfDay: Double, sentence: UInt64) {
        epoch = Epoch(timeOfDay: timeOfDay, days: 0, sentences: [sentence])
        offsets = [Offset(readAt: readAt, offset: readAt - Self.receiverTime(days: 0, timeOfDay: timeOfDay))]
        lag = .zero
        span = Span(firstRead: readAt, date: readAt)
    }

    /// The receiver's time since the midnight the reckoning started from.
    private static func receiverTime(days: Int, timeOfDay: Double) -> Duration {
        .seconds(days * 86_400) + .nanoseconds(Int64((timeOfDay * 1e9).rounded()))
    }

    /// The stamp of a timed NMEA sentence (`$..GGA`, `RMC`, `GNS`, `ZDA`: its first field; `GLL`: its fifth),
    /// without a time of day when that field is empty or malformed; `nil` for any other line, and for one whose
    /// checksum is wrong (a digit of its time may have been garbled on the line).
    static func stamp(of line: some Collection<UInt8>) -> Stamp? {
        guard checksumHolds(line) else { return nil }
        var bytes = line.makeIterator()
        // `$`, two talker characters, three of the sentence's type (kept as one number: no allocation per line).
        var length = 0, sentence: UInt64 = 0
        while let byte = bytes.next(), byte != UInt8(ascii: ",") {
            if length == 0, byte != UInt8(ascii: "$") { return nil }
            // A proprietary sentence (`$P…`: Garmin's PGRMC is no RMC) carries no standard time.
            if length == 1, byte == UInt8(ascii: "P") { return nil }
            length += 1
            if length > 6 { return nil }
            if length > 1 { sentence = sentence << 8 | UInt64(byte) }
        }
        guard length == 6 else { return nil }
        let field: Int
        switch sentence & 0xFF_FFFF {
        case 0x47_4741, 0x52_4D43, 0x47_4E53, 0x5A_4441: field = 1  // GGA, RMC, GNS, ZDA
        case 0x47_4C4C: field = 5  // GLL
        default: return nil
        }
        let undated = Stamp(timeOfDay: nil, sentence: sentence)
        var index = 1
        while index < field {
            guard let byte = bytes.next() else { return undated }
            if byte == UInt8(ascii: ",") { index += 1 }
        }
        // hhmmss, then an optional fraction.
        var whole = 0, digits = 0
        var fraction = 0.0, scale = 0.1, inFraction = false
        while let byte = bytes.next(), byte != UInt8(ascii: ","), byte != UInt8(ascii: "*") {
            if byte == UInt8(ascii: "."), !inFraction, digits == 6 {
                inFraction = true
                continue
            }
            guard byte >= 0x30, byte <= 0x39 else { return undated }
            let digit = Int(byte - 0x30)
            if inFraction {
                fraction += Double(digit) * scale
                scale /= 10
            } else {
                whole = whole * 10 + digit
                digits += 1
                if digits > 6 { return undated }
            }
        }
        guard digits == 6 else { return undated }
        let hours = whole / 10_000, minutes = whole / 100 % 100, seconds = whole % 100
        guard hours < 24, minutes < 60, seconds < 61 else { return undated }
        return Stamp(timeOfDay: Double(hours * 3600 + minutes * 60 + seconds) + fraction, sentence: sentence)
    }

    /// Whether `line`'s checksum (`*hh` after the sentence) is right, or it has none (NMEA made it optional).
    private static func checksumHolds(_ line: some Collection<UInt8>) -> Bool {
        guard let star = line.firstIndex(of: UInt8(ascii: "*")), line.first == UInt8(ascii: "$") else { return true }
        var digits = line[line.index(after: star)...].makeIterator()
        guard let high = digits.next().flatMap(NMEASentenceParser.hexValue), let low = digits.next().flatMap(NMEASentenceParser.hexValue)
        else { return false }
        return NMEASentenceParser.checksum(of: line[line.index(after: line.startIndex)..<star]) == high << 4 | low
    }
}
