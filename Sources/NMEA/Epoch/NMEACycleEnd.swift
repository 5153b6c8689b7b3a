/// Learns which sentence ends a receiver's navigation cycle, so that an epoch is emitted as soon as its
/// cycle is complete instead of when the next cycle's first timed sentence arrives.
///
/// A receiver prints its cycle's sentences in a fixed order, then nothing until the next cycle: a second
/// later at 1 Hz, a minute later in a power-save mode. Without knowing where a cycle ends, its epoch waits
/// for the next one. The detector takes the timed sentence (GGA, RMC, GLL, GNS, GST, ZDA, `$PSRFEPE`) seen
/// last before each change of the time of day as the cycle's end (as gpsd does), and the assembler emits the
/// open epoch when that sentence arrives again. Sentences without a time printed after it (GSVs at the end
/// of a cycle) join the next epoch, as gpsd reports them.
///
/// Learning: the first change of time sets the ender; another sentence replaces it only after being last
/// before two changes of time in a row, so that a sentence printed every few cycles (a ZDA every ten
/// seconds) does not move the end back and forth. A timed sentence that arrives after the epoch of its
/// time went out (a receiver printing GGA at 10 Hz and RMC and ZDA at 1 Hz after the whole second's GGA)
/// is left out of every epoch — its epoch is gone — and its type never ends a cycle again on this stream,
/// so that this happens at most once per sentence type.
///
/// Pure state, a few bytes: no allocation.
struct NMEACycleEnd: Sendable {
    /// One timed sentence's place in a cycle: its type and talker, and which of that type it is in the cycle.
    struct Sentence: Sendable, Equatable {
        var kind: UInt8
        var talker: NMEATalker?
        var occurrence: UInt8
    }

    /// The sentence that ends a cycle, once learned.
    private(set) var ender: Sentence?
    /// A sentence last before one change of time that is not the ender: it replaces the ender when it is
    /// last before the next change too.
    private var candidate: Sentence?
    /// The timed sentence added last.
    private(set) var last: Sentence?
    /// Timed sentences left out because the epoch of their time had gone out.
    private(set) var leftOut = 0
    /// Bit per ``NMEASentenceKind/ordinal``: types a timed sentence of the same cycle followed.
    private var banned: UInt16 = 0
    /// Whether the epoch emitted at its cycle's end had a position (and no timed sentence without a time
    /// followed it).
    private(set) var emittedHadPosition = false
    /// The time of the epoch emitted at its cycle's end, until a sentence of another time arrives: a timed
    /// sentence of this time is then left out (its epoch is gone).
    private(set) var emittedTime: NMEATimeOfDay?

    /// How many of each type (by ``NMEASentenceKind/ordinal``) the epoch emitted at its cycle's end held,
    /// and the stragglers of its time since: a straggler is that many-th of its type in its cycle.
    private var emittedCounts = SIMD16<UInt8>()

    /// Notes that the timed `sentence` was added.
    mutating func added(_ sentence: Sentence) { last = sentence }

    /// A sentence of a timed type arrived without a time (a receiver without a fix may print GGAs with an
    /// empty time field): the cycle it is in has no position to teach from, whatever the epoch emitted
    /// before it had.
    mutating func addedWithoutTime() { emittedHadPosition = false }

    /// The epoch of `time` was emitted at its cycle's end, holding `counts` of each type.
    mutating func emitted(time: NMEATimeOfDay, hadPosition: Bool, counts: SIMD16<UInt8>) {
        emittedTime = time
        emittedHadPosition = hadPosition
        emittedCounts = counts
    }

    /// A timed sentence of type `kind` (an ordinal) arrived after the epoch of its time went out: it is the
    /// last timed sentence of that cycle, counted in its place there, so that it can be learned as the end
    /// of the next cycles (a 1 Hz RMC after the whole second's GGA at 10 Hz).
    mutating func addedAfterItsEpoch(kind: UInt8, talker: NMEATalker?) {
        let index = Int(kind)
        if emittedCounts[index] < .max { emittedCounts[index] += 1 }
        last = Sentence(kind: kind, talker: talker, occurrence: emittedCounts[index])
    }

    /// A sentence of a new time of day arrived: the one before it ended the cycle. Only a cycle with a
    /// position teaches where cycles end: a receiver without a fix leaves sentences out (a GST without
    /// errors, an empty RMC), and its shorter cycle would end the next full one early.
    mutating func timeChanged(cycleHadPosition: Bool) {
        emittedTime = nil
        guard cycleHadPosition, let last, banned & (1 << last.kind) == 0 else { return }
        if ender == nil || last == ender {
            ender = last
            candidate = nil
        } else if last == candidate {
            ender = last
            candidate = nil
        } else {
            candidate = last
        }
    }

    /// A timed sentence of the epoch emitted at the ender arrived: the ender does not end this receiver's
    /// cycles.
    mutating func strayed() {
        leftOut += 1
        if let ender { banned |= 1 << ender.kind }
        ender = nil
        candidate = nil
    }
}
