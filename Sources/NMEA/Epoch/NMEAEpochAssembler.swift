/// Groups decoded sentences into epochs, one per receiver navigation cycle.
///
/// Rules:
/// - A sentence that carries a time of day (GGA, RMC, GLL, GST, ZDA) with a time
///   different from the open epoch's closes that epoch and opens a new one. A
///   time-bearing sentence whose time field is empty closes a timed epoch too, and
///   closes an untimed one when the same sentence type was already seen in it
///   (receivers without a fix print one empty GGA per cycle).
/// - Sentences without time (GSA, GSV, VTG) join the open epoch.
/// - The date (RMC, ZDA) carries over to later epochs that have none, moving to
///   the next day when the time of day wraps past midnight.
/// - ``finish(onEpoch:)`` emits the last open epoch.
///
/// Pure state: no I/O, no clock. Steady state it allocates nothing: the epoch's
/// arrays keep their capacity between epochs as long as the receiver of an
/// emitted epoch does not keep it.
public struct NMEAEpochAssembler: Sendable {
    private var current = NMEAEpoch()
    private var evidence = Evidence()
    private var cachedTalker = NMEATalker.gps
    private var cachedTalkerString = "GP"
    private var lastDate: NMEADate?
    private var lastTime: NMEATimeOfDay?

    /// What the sentences of the open epoch said, beyond the epoch's public fields.
    private struct Evidence: Sendable {
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
        /// RMC/GLL status: `true` when any said `A`.
        var status: Bool?
        /// Whether the HDOP came from GGA (which wins over GSA).
        var hdopFromGGA = false
    }

    /// Creates an assembler with no open epoch.
    public init() {}

    /// Adds one sentence, first emitting the open epoch if this sentence starts a new one.
    ///
    /// - Complexity: O(1), plus O(satellites) for GSV and GSA.
    public mutating func add(_ sentence: NMEASentence, onEpoch: (NMEAEpoch) -> Void) {
        let kind = sentence.kind
        if kind.carriesTime && evidence.hasContent {
            let time = sentence.timeOfDay
            let boundary: Bool
            if let epochTime = evidence.time {
                boundary = time != epochTime
            } else if time != nil {
                boundary = evidence.timedKinds != 0
            } else {
                boundary = evidence.timedKinds & (1 << kind.ordinal) != 0
            }
            if boundary { emit(onEpoch) }
        }
        evidence.hasContent = true
        if kind.carriesTime {
            evidence.timedKinds |= 1 << kind.ordinal
            if evidence.time == nil, let time = sentence.timeOfDay {
                evidence.time = time
                current.secondsOfDay = time.seconds
            }
        }
        apply(sentence.body, talker: sentence.talker)
    }

    /// Emits the open epoch, if any sentence joined it. Call at end of stream.
    public mutating func finish(onEpoch: (NMEAEpoch) -> Void) {
        if evidence.hasContent { emit(onEpoch) }
    }

    private mutating func setTalker(_ talker: NMEATalker) {
        guard !evidence.hasTalker else { return }
        evidence.hasTalker = true
        if talker != cachedTalker {
            cachedTalker = talker
            cachedTalkerString = talker.string
        }
        current.talker = cachedTalkerString
    }

    private mutating func setPosition(_ latitude: Double?, _ longitude: Double?) {
        guard let latitude, let longitude, current.latitude == nil else { return }
        current.latitude = latitude
        current.longitude = longitude
    }

    private mutating func setDate(_ date: NMEADate?) {
        guard let date else { return }
        current.year = date.year
        current.month = date.month
        current.day = date.day
    }

    private mutating func apply(_ body: NMEASentence.Body, talker: NMEATalker) {
        switch body {
        case .gga(let gga):
            setTalker(talker)
            setPosition(gga.latitude, gga.longitude)
            evidence.ggaQuality = gga.quality ?? evidence.ggaQuality
            current.ggaQuality = evidence.ggaQuality
            current.satellitesUsed = gga.satellitesUsed ?? current.satellitesUsed
            if let hdop = gga.hdop {
                current.hdop = hdop
                evidence.hdopFromGGA = true
            }
            current.altitudeMSL = gga.altitudeMSL ?? current.altitudeMSL
            current.geoidSeparation = gga.geoidSeparation ?? current.geoidSeparation
        case .rmc(let rmc):
            setTalker(talker)
            setPosition(rmc.latitude, rmc.longitude)
            if let valid = rmc.isValid { evidence.status = (evidence.status ?? false) || valid }
            if let knots = rmc.speedKnots { current.speed = knots * NMEAUnits.metresPerSecondPerKnot }
            current.track = rmc.track ?? current.track
            setDate(rmc.date)
        case .gsa(let gsa):
            evidence.gsaFixType = gsa.fixType ?? evidence.gsaFixType
            for prn in gsa.usedPRNs where !current.usedPRNs.contains(prn) {
                current.usedPRNs.append(prn)
            }
            current.pdop = gsa.pdop ?? current.pdop
            current.vdop = gsa.vdop ?? current.vdop
            if !evidence.hdopFromGGA { current.hdop = gsa.hdop ?? current.hdop }
        case .gsv(let gsv):
            for satellite in gsv.satellites {
                if let index = current.satellites.firstIndex(where: { $0.prn == satellite.prn }) {
                    current.satellites[index] = satellite
                } else {
                    current.satellites.append(satellite)
                }
            }
        case .gll(let gll):
            setTalker(talker)
            setPosition(gll.latitude, gll.longitude)
            if let valid = gll.isValid, gll.faaMode != 0x4E { evidence.status = (evidence.status ?? false) || valid }
        case .vtg(let vtg):
            guard vtg.faaMode != 0x4E else { return }  // mode N: data not valid
            current.track = vtg.trackTrue ?? current.track
            current.speed = vtg.speed ?? current.speed
        case .gst(let gst):
            current.gstLatitudeError = gst.latitudeError ?? current.gstLatitudeError
            current.gstLongitudeError = gst.longitudeError ?? current.gstLongitudeError
            current.gstAltitudeError = gst.altitudeError ?? current.gstAltitudeError
        case .zda(let zda):
            setDate(zda.date)
        }
    }

    private mutating func emit(_ onEpoch: (NMEAEpoch) -> Void) {
        finalize()
        onEpoch(current)
        // Hand the arrays' buffers to the next epoch: unique again now that the callback returned.
        var next = NMEAEpoch()
        swap(&next.satellites, &current.satellites)
        swap(&next.usedPRNs, &current.usedPRNs)
        next.satellites.removeAll(keepingCapacity: true)
        next.usedPRNs.removeAll(keepingCapacity: true)
        next.talker = cachedTalkerString
        current = next
        evidence = Evidence()
    }

    private mutating func finalize() {
        if let quality = evidence.ggaQuality {
            current.mode = quality == 0 ? .noFix : (current.altitudeMSL != nil ? .threeD : .twoD)
        } else if let fixType = evidence.gsaFixType {
            current.mode = NMEAFixMode(rawValue: fixType) ?? .unknown
        } else if let status = evidence.status {
            current.mode = status ? .twoD : .noFix
        }
        if current.mode == .noFix {
            current.latitude = nil
            current.longitude = nil
            current.altitudeMSL = nil
            current.speed = nil
            current.track = nil
        }
        for index in current.satellites.indices {
            current.satellites[index].used = current.usedPRNs.contains(current.satellites[index].prn)
        }
        if current.satellitesUsed == nil, evidence.gsaFixType != nil || !current.usedPRNs.isEmpty {
            current.satellitesUsed = current.usedPRNs.count
        }
        carryDate()
    }

    /// Fills a missing date from the last known one, rolling over at midnight, and remembers dated epochs.
    private mutating func carryDate() {
        guard let time = evidence.time else { return }
        if let year = current.year, let month = current.month, let day = current.day {
            lastDate = NMEADate(year: year, month: month, day: day)
            lastTime = time
            return
        }
        guard var date = lastDate, let previous = lastTime else { return }
        if time.microseconds + 43_200_000_000 < previous.microseconds {
            let next = NMEACalendar.civil(daysSince1970: NMEACalendar.daysSince1970(year: date.year, month: date.month, day: date.day) + 1)
            date = NMEADate(year: next.year, month: next.month, day: next.day)
        }
        setDate(date)
        lastDate = date
        lastTime = time
    }
}
