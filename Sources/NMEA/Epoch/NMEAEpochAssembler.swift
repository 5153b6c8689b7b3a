/// Groups decoded sentences into epochs, one per receiver navigation cycle.
///
/// Rules:
/// - A sentence that carries a time of day (GGA, RMC, GLL, GNS, GST, ZDA, `$PSRFEPE`)
///   with a time 10 ms or more from the open epoch's closes that epoch and opens a new
///   one (times closer are one cycle printed to different precisions, as gpsd takes them). A time-bearing sentence whose time field is empty closes a timed epoch
///   too, and closes an untimed one when the same sentence type was already seen
///   in it (receivers without a fix print one empty GGA per cycle).
/// - Sentences without time (GSA, GSV, VTG, HDT, `$PGRME`, `$PGRMZ`) join the open epoch.
/// - Position: the latest of the cycle (GGA, RMC, GLL, GNS) wins, as in gpsd; an RMC or GLL
///   whose status or FAA mode says its data is not valid gives none.
/// - Mode: see `finalize()`; a simulated fix (GGA quality 8, FAA mode `S`) is no fix.
/// - Speed and track, when the receiver reported no speed, and climb are derived
///   from the previous fix and marked in ``NMEAEpoch/derived``.
/// - The date (RMC, ZDA) carries over to later epochs that have none, moving to
///   the next day when the time of day wraps past midnight; epochs before the
///   first date have none. With a roll-over pivot, dates before it move forward
///   by 1024 weeks (receivers hit by the GPS week roll-over).
/// - A cycle ends at the timed sentence the receiver printed last before the time of day changed
///   (learned as it goes: see `NMEACycleEnd`): the open epoch is emitted when that sentence arrives,
///   not a cycle later when the next one starts. Until it is learned, and whenever a cycle does not
///   end with it, the next cycle's first timed sentence closes the epoch as above. A timed sentence
///   that arrives after its cycle's epoch went out is left out of every epoch, and the type that ended
///   that epoch too early ends none again (so at most once per type and stream).
/// - ``finish(onEpoch:)`` emits the last open epoch.
///
/// Pure state: no I/O, no clock. Steady state it allocates nothing: the epoch's
/// arrays keep their capacity between epochs as long as the receiver of an
/// emitted epoch does not keep it.
public struct NMEAEpochAssembler: Sendable {
    var current = NMEAEpoch()
    var evidence = Evidence()
    private var cachedTalker = NMEATalker.gps
    private var cachedTalkerString = "GP"
    private var lastDate: NMEADate?
    private var lastTime: NMEATimeOfDay?
    private var lastFix: NMEAMotion.Fix?
    private var cycleEnd = NMEACycleEnd()
    /// Dates before this one are moved forward by 1024 weeks (`nil`: dates are used as printed).
    public let rolloverPivot: NMEADate?

    /// What the sentences of the open epoch said, beyond the epoch's public fields.
    struct Evidence: Sendable {
        /// The epoch's time of day, from its first timed sentence.
        var time: NMEATimeOfDay?
        /// Whether any sentence joined the epoch.
        var hasContent = false
        /// Bit per ``NMEASentenceKind/ordinal`` of the time-bearing sentences seen.
        var timedKinds: UInt16 = 0
        /// Whether a positional sentence already set the talker.
        var hasTalker = false
        /// The GGA fix quality, when a GGA was seen.
        var ggaQuality: Int?
        /// The GSA fix type, when a GSA was seen.
        var gsaFixType: Int?
        /// Whether that GSA came before the epoch's first timed sentence: it may be the previous cycle's (a
        /// receiver that prints GSA after the sentence its cycle is learned to end at), so it tells 2D from 3D
        /// of a fix the cycle's own RMC/GLL status confirms, and never overrules that status.
        var gsaBeforeTime = false
        /// RMC/GLL status: `true` when any said `A`.
        var status: Bool?
        /// Whether the HDOP came from GGA (which wins over GSA).
        var hdopFromGGA = false
        /// GNS: whether any constellation had a fix, when a GNS was seen.
        var gnsFix: Bool?
        /// Whether a sentence marked the data as simulated (GGA quality 8, FAA mode `S`).
        var simulated = false
        /// `$PGRMZ` fix dimension, when one was seen.
        var pgrmzDimension: Int?
        /// Sentences of each ``NMEASentenceKind/ordinal`` that joined the epoch (at most 255 counted).
        var kindCounts = SIMD16<UInt8>()

        mutating func count(_ kind: NMEASentenceKind) {
            if kindCounts[kind.ordinal] < .max { kindCounts[kind.ordinal] += 1 }
        }
    }

    /// Creates an assembler with no open epoch.
    ///
    /// - Parameter rolloverPivot: dates before it are taken to come from a receiver hit by the GPS week
    ///   roll-over and move forward by 1024 weeks until they are not (gpsd 3.22 uses 2017-01-01).
    ///   `nil`, the default, uses dates as printed, which is right for recorded logs of any age.
    public init(rolloverPivot: NMEADate? = nil) {
        self.rolloverPivot = rolloverPivot
    }

    /// Adds one sentence, first emitting the open epoch if this sentence starts a new one.
    ///
    /// - Complexity: O(1), plus O(satellites) for GSV and GSA.
    public mutating func add(_ sentence: NMEASentence, onEpoch: (NMEAEpoch) -> Void) {
        switch sentence.body {
        case .gga(let gga): add(gga, talker: sentence.talker, onEpoch: onEpoch)
        case .rmc(let rmc): add(rmc, talker: sentence.talker, onEpoch: onEpoch)
        case .gsa(let gsa): add(gsa, talker: sentence.talker, onEpoch: onEpoch)
        case .gsv(let gsv): add(gsv, talker: sentence.talker, onEpoch: onEpoch)
        case .gll(let gll): add(gll, talker: sentence.talker, onEpoch: onEpoch)
        case .vtg(let vtg): add(vtg, onEpoch: onEpoch)
        case .gst(let gst): add(gst, onEpoch: onEpoch)
        case .zda(let zda): add(zda, onEpoch: onEpoch)
        case .gns(let gns): add(gns, talker: sentence.talker, onEpoch: onEpoch)
        case .hdt(let hdt): add(hdt, onEpoch: onEpoch)
        case .pgrme(let pgrme): add(pgrme, onEpoch: onEpoch)
        case .pgrmz(let pgrmz): add(pgrmz, onEpoch: onEpoch)
        case .psrfepe(let epe): add(epe, onEpoch: onEpoch)
        }
    }

    /// Starts a new epoch if a sentence of `kind` with `time` does not belong to the open one,
    /// then records the sentence as part of the (possibly new) open epoch. Returns `false`, recording
    /// nothing, for a timed sentence whose epoch was already emitted at its cycle's end.
    @inline(__always) @discardableResult
    mutating func join(_ kind: NMEASentenceKind, time: NMEATimeOfDay?, onEpoch: (NMEAEpoch) -> Void) -> Bool {
        guard kind.carriesTime else {
            evidence.hasContent = true
            evidence.count(kind)
            return true
        }
        if time == nil { cycleEnd.addedWithoutTime() }
        if let time, let reference = evidence.time ?? cycleEnd.emittedTime {
            if !time.isSameCycle(as: reference) {
                cycleEnd.timeChanged(cycleHadPosition: evidence.time != nil ? current.latitude != nil : cycleEnd.emittedHadPosition)
            } else if evidence.time == nil {
                cycleEnd.strayed()
                return false
            }
        }
        if evidence.hasContent {
            let boundary: Bool
            if let epochTime = evidence.time {
                boundary = time.map { !$0.isSameCycle(as: epochTime) } ?? true
            } else if time != nil {
                boundary = evidence.timedKinds != 0
            } else {
                boundary = evidence.timedKinds & (1 << kind.ordinal) != 0
            }
            if boundary { emit(onEpoch) }
        }
        evidence.hasContent = true
        evidence.timedKinds |= 1 << kind.ordinal
        evidence.count(kind)
        if let time {
            // The cycle's latest time is its time (RMC's, printed last, as gpsd reports it); the first one
            // still decides which later times belong to the cycle.
            if evidence.time == nil { evidence.time = time }
            current.secondsOfDay = time.seconds
        }
        return true
    }

    /// Notes the timed sentence just added and, when it is the one that ends a cycle, emits the open epoch.
    ///
    /// - Parameter talker: the sentence's talker, for the types whose add has one.
    @inline(__always)
    mutating func ended(_ kind: NMEASentenceKind, talker: NMEATalker? = nil, onEpoch: (NMEAEpoch) -> Void) {
        let sentence = NMEACycleEnd.Sentence(kind: UInt8(kind.ordinal), talker: talker, occurrence: evidence.kindCounts[kind.ordinal])
        cycleEnd.added(sentence)
        guard sentence == cycleEnd.ender, let time = evidence.time else { return }
        let hadPosition = current.latitude != nil, counts = evidence.kindCounts
        emit(onEpoch)
        cycleEnd.emitted(time: time, hadPosition: hadPosition, counts: counts)
    }

    /// Notes a timed sentence left out because the epoch of its time had gone out
    /// (``join(_:time:onEpoch:)`` returned `false`).
    @inline(__always)
    mutating func leftOut(_ kind: NMEASentenceKind, talker: NMEATalker? = nil) {
        cycleEnd.addedAfterItsEpoch(kind: UInt8(kind.ordinal), talker: talker)
    }

    /// Timed sentences left out of every epoch because they arrived after the epoch of their time had been
    /// emitted at the sentence learned to end its cycle (at most one per sentence type: that type ends no
    /// cycle again).
    public var sentencesAfterTheirEpoch: Int { cycleEnd.leftOut }

    /// Emits the open epoch, if any sentence joined it. Call at end of stream.
    public mutating func finish(onEpoch: (NMEAEpoch) -> Void) {
        if evidence.hasContent { emit(onEpoch) }
    }

    /// Sets the epoch's talker from its first positional sentence (cached: no string is built per epoch).
    mutating func setTalker(_ talker: NMEATalker) {
        guard !evidence.hasTalker else { return }
        evidence.hasTalker = true
        if talker != cachedTalker {
            cachedTalker = talker
            cachedTalkerString = talker.string
        }
        current.talker = cachedTalkerString
    }

    private mutating func emit(_ onEpoch: (NMEAEpoch) -> Void) {
        finalize()
        onEpoch(current)
        // Hand the arrays' buffers to the next epoch: unique again now that the callback returned.
        var next = NMEAEpoch()
        swap(&next.satellites, &current.satellites)
        swap(&next.usedSatellites, &current.usedSatellites)
        next.satellites.removeAll(keepingCapacity: true)
        next.usedSatellites.removeAll(keepingCapacity: true)
        next.talker = cachedTalkerString
        current = next
        evidence = Evidence()
    }

    /// Decides the mode and clears what a no-fix epoch must not report.
    ///
    /// Mode, first rule that applies: simulated data → no fix; GGA quality 0 → no fix, else 3D with an
    /// altitude and 2D without; GNS likewise from its per-constellation modes; GSA's fix type (unless the GSA came
    /// before the cycle's first timed sentence and the cycle has an RMC/GLL status: then the status decides, the
    /// GSA telling 3D from 2D of a fix it confirms); RMC/GLL status (`A` → 2D, `V` or FAA mode `N` → no fix);
    /// `$PGRMZ`'s dimension; a cycle that carried a time but nothing about a fix → no fix.
    private mutating func finalize() {
        if evidence.simulated {
            current.mode = .noFix
        } else if let quality = evidence.ggaQuality {
            current.mode = quality == 0 ? .noFix : (current.altitudeMSL != nil ? .threeD : .twoD)
        } else if let fix = evidence.gnsFix {
            current.mode = !fix ? .noFix : (current.altitudeMSL != nil ? .threeD : .twoD)
        } else if let fixType = evidence.gsaFixType, !(evidence.gsaBeforeTime && evidence.status != nil) {
            current.mode = NMEAFixMode(rawValue: fixType) ?? .unknown
        } else if let status = evidence.status {
            current.mode = !status ? .noFix : (evidence.gsaFixType == NMEAFixMode.threeD.rawValue ? .threeD : .twoD)
        } else if let dimension = evidence.pgrmzDimension {
            current.mode = NMEAFixMode(rawValue: dimension) ?? .unknown
        } else if evidence.time != nil, current.latitude == nil {
            current.mode = .noFix
        }
        if current.mode == .noFix {
            current.latitude = nil
            current.longitude = nil
            current.altitudeMSL = nil
            current.speed = nil
            current.track = nil
        }
        for index in current.satellites.indices {
            current.satellites[index].used = current.usedSatellites.contains(current.satellites[index].id)
        }
        if current.satellitesUsed == nil, evidence.gsaFixType != nil || !current.usedSatellites.isEmpty {
            current.satellitesUsed = current.usedSatellites.count
        }
        carryDate()
        deriveMotion()
    }

    /// Derives the motion the receiver left out from the previous fix, and remembers this one.
    private mutating func deriveMotion() {
        guard current.mode == .twoD || current.mode == .threeD, let latitude = current.latitude,
            let longitude = current.longitude, let seconds = current.secondsOfDay
        else { return }
        if var previous = lastFix {
            // Times of day: a step back of more than half a day is the next day.
            if seconds - previous.seconds < -43_200 { previous.seconds -= 86_400 }
            NMEAMotion.derive(&current, seconds: seconds, from: previous)
        }
        lastFix = NMEAMotion.Fix(seconds: seconds, latitude: latitude, longitude: longitude, altitude: current.altitudeMSL)
    }

    /// Fills a missing date from the last known one, rolling over at midnight, and remembers dated epochs.
    private mutating func carryDate() {
        guard let time = evidence.time else { return }
        if let year = current.year, let month = current.month, let day = current.day {
            let date = NMEAWeekRollover.corrected(NMEADate(year: year, month: month, day: day), pivot: rolloverPivot)
            (current.year, current.month, current.day) = (date.year, date.month, date.day)
            lastDate = date
            lastTime = time
            return
        }
        guard var date = lastDate, let previous = lastTime else { return }
        if time.microseconds + 43_200_000_000 < previous.microseconds {
            let next = NMEACalendar.civil(daysSince1970: NMEACalendar.daysSince1970(year: date.year, month: date.month, day: date.day) + 1)
            date = NMEADate(year: next.year, month: next.month, day: next.day)
        }
        current.year = date.year
        current.month = date.month
        current.day = date.day
        lastDate = date
        lastTime = time
    }
}
