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
/// offset among the recent timed lines is the latency of a line read at once. A line's lag is its offset less
/// that least one, and it is dated at its read time less its lag: an epoch read late is dated at when it
/// would have been read at once. Lines without a time (GSA, GSV, UBX frames) take the lag of the last timed
/// line. Dates never go backwards.
///
/// The least offset is taken over the last ``window`` timed lines, so that the clocks' drift and a receiver
/// clock that was set (a jump) fade out; a line whose lag exceeds ``longestLag`` is taken as such a jump (or a
/// reader held up for that long, which this cannot tell) and starts the reckoning again from itself, read
/// time and date the same. A time that goes back dates nothing either, and reckoning starts again from it. The
/// lines of one epoch share its time: a line whose time is the last one's keeps that line's lag, unless it is
/// read more than ``standingTime`` after that time was first read — a receiver repeating its last fix's time
/// across epochs, which says nothing of when the line was sent: it is dated at read time. A receiver that dates
/// nothing is dated at read time. The receiver's clock is taken to run at the host's rate, as a GNSS
/// receiver's does (GPS time).
///
/// A pure value: the NMEA source keeps one per receiver link, no clock of its own.
struct OutputDating: Sendable, Hashable {
    /// The timed lines the least offset is taken over.
    static let window = 32
    /// The longest lag taken as a late read; beyond it, a jump of the receiver's clock.
    static let longestLag = Duration.seconds(10)
    /// A time of day read again this much after it was first read stands still: one epoch's lines are read
    /// sooner (at 9600 baud an epoch of NMEA takes about half a second).
    static let standingTime = Duration.milliseconds(900)

    /// The offsets of the last timed lines (at most ``window``), the oldest first.
    private var offsets: [Duration] = []
    /// The receiver's last time of day, seconds, and the days it has wrapped past midnight since.
    private var lastTimeOfDay: Double?
    private var days = 0
    /// The lag of the last timed line.
    private var lag = Duration.zero
    /// When the last time of day was first read.
    private var firstReadOfTime: Duration?
    /// The last date given.
    private var lastDate: Duration?

    /// The date of output read at `readAt`, stamped `timeOfDay` seconds into the receiver's UTC day (`nil`: not
    /// stamped).
    mutating func date(readAt: Duration, timeOfDay: Double?) -> Duration {
        if let timeOfDay { reckon(readAt: readAt, timeOfDay: timeOfDay) }
        let date = max(lastDate ?? .zero, readAt - lag)
        lastDate = date
        return date
    }

    private mutating func reckon(readAt: Duration, timeOfDay: Double) {
        if let last = lastTimeOfDay {
            if timeOfDay < last - 43_200 {
                // Past midnight the time of day starts again from zero: a fall of more than half a day is a new day.
                days += 1
            } else if timeOfDay == last {
                // The same epoch's next line keeps its lag; a time that stands still across epochs dates nothing.
                if let first = firstReadOfTime, readAt - first > Self.standingTime { lag = .zero }
                return
            } else if timeOfDay < last {
                // Gone back: it dates nothing, and reckoning starts again from it.
                lastTimeOfDay = timeOfDay
                firstReadOfTime = readAt
                offsets = []
                lag = .zero
                return
            }
        }
        lastTimeOfDay = timeOfDay
        firstReadOfTime = readAt
        let receiverTime = Duration.nanoseconds(Int64(((Double(days) * 86_400 + timeOfDay) * 1e9).rounded()))
        let offset = readAt - receiverTime
        let least = offsets.min() ?? offset
        if offset - least > Self.longestLag || least - offset > Self.longestLag {
            // A jump of the receiver's clock: reckoned again from this line.
            offsets = [offset]
            lag = .zero
            return
        }
        if offsets.count == Self.window { offsets.removeFirst() }
        offsets.append(offset)
        lag = max(.zero, offset - min(least, offset))
    }

    /// The time of day a timed NMEA sentence carries (`$..GGA`, `RMC`, `GNS`, `ZDA`: its first field; `GLL`: its
    /// fifth), seconds since midnight UTC; `nil` for any other line, or an empty or malformed time.
    static func timeOfDay(of line: some Collection<UInt8>) -> Double? {
        var bytes = line.makeIterator()
        // `$`, two talker characters, three of the sentence's type (kept as one number: no allocation per line).
        var length = 0, type: UInt32 = 0
        while let byte = bytes.next(), byte != UInt8(ascii: ",") {
            if length == 0, byte != UInt8(ascii: "$") { return nil }
            // A proprietary sentence (`$P…`: Garmin's PGRMC is no RMC) carries no standard time.
            if length == 1, byte == UInt8(ascii: "P") { return nil }
            length += 1
            if length > 6 { return nil }
            if length > 3 { type = type << 8 | UInt32(byte) }
        }
        guard length == 6 else { return nil }
        let field: Int
        switch type {
        case 0x47_4741, 0x52_4D43, 0x47_4E53, 0x5A_4441: field = 1  // GGA, RMC, GNS, ZDA
        case 0x47_4C4C: field = 5  // GLL
        default: return nil
        }
        var index = 1
        while index < field {
            guard let byte = bytes.next() else { return nil }
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
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let digit = Int(byte - 0x30)
            if inFraction {
                fraction += Double(digit) * scale
                scale /= 10
            } else {
                whole = whole * 10 + digit
                digits += 1
                if digits > 6 { return nil }
            }
        }
        guard digits == 6 else { return nil }
        let hours = whole / 10_000, minutes = whole / 100 % 100, seconds = whole % 100
        guard hours < 24, minutes < 60, seconds < 61 else { return nil }
        return Double(hours * 3600 + minutes * 60 + seconds) + fraction
    }
}
