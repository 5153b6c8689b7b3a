/// What each sentence type contributes to the open epoch.
///
/// Each `add` first lets ``NMEAEpochAssembler/join(_:time:onEpoch:)`` decide
/// whether the sentence starts a new epoch, then copies its fields in, then (a timed
/// sentence) lets `ended(_:talker:onEpoch:)` emit the epoch if the sentence ends its cycle. Values a
/// sentence leaves empty never overwrite what another sentence of the epoch said.
extension NMEAEpochAssembler {
    /// Adds a GGA: position, quality, satellites used, HDOP (which wins over GSA's), altitude, geoid separation.
    @inline(__always)
    public mutating func add(_ gga: NMEAGGA, talker: NMEATalker, onEpoch: (NMEAEpoch) -> Void) {
        guard join(.gga, time: gga.time, onEpoch: onEpoch) else { return leftOut(.gga, talker: talker) }
        setTalker(talker)
        setPosition(gga.latitude, gga.longitude)
        evidence.ggaQuality = gga.quality ?? evidence.ggaQuality
        if gga.quality == 8 { evidence.simulated = true }
        current.ggaQuality = evidence.ggaQuality
        current.satellitesUsed = gga.satellitesUsed ?? current.satellitesUsed
        if let hdop = gga.hdop {
            current.hdop = hdop
            evidence.hdopFromGGA = true
        }
        current.altitudeMSL = gga.altitudeMSL ?? current.altitudeMSL
        current.geoidSeparation = gga.geoidSeparation ?? current.geoidSeparation
        ended(.gga, talker: talker, onEpoch: onEpoch)
    }

    /// Adds an RMC: position, status, speed, track, date.
    @inline(__always)
    public mutating func add(_ rmc: NMEARMC, talker: NMEATalker, onEpoch: (NMEAEpoch) -> Void) {
        guard join(.rmc, time: rmc.time, onEpoch: onEpoch) else { return leftOut(.rmc, talker: talker) }
        setTalker(talker)
        if Self.isValidData(rmc.isValid, faaMode: rmc.faaMode) { setPosition(rmc.latitude, rmc.longitude) }
        setStatus(rmc.isValid, faaMode: rmc.faaMode)
        // The speed and track of data the receiver marks invalid are not taken (as gpsd does not).
        if Self.isValidData(rmc.isValid, faaMode: rmc.faaMode) {
            if let knots = rmc.speedKnots { current.speed = knots * NMEAUnits.metresPerSecondPerKnot }
            current.track = rmc.track ?? current.track
        }
        setDate(rmc.date)
        ended(.rmc, talker: talker, onEpoch: onEpoch)
    }

    /// Adds a GSA: fix type, used satellites (accumulated over the GSAs of a multi-constellation epoch), DOPs.
    @inline(__always)
    public mutating func add(_ gsa: NMEAGSA, talker: NMEATalker, onEpoch: (NMEAEpoch) -> Void) {
        join(.gsa, time: nil, onEpoch: onEpoch)
        if let fixType = gsa.fixType {
            evidence.gsaFixType = fixType
            evidence.gsaBeforeTime = evidence.time == nil
        }
        for prn in gsa.usedPRNs {
            let id = NMEASatelliteID(prn: prn, talker: talker, systemID: gsa.systemID)
            if !current.usedSatellites.contains(id) { current.usedSatellites.append(id) }
        }
        current.pdop = gsa.pdop ?? current.pdop
        current.vdop = gsa.vdop ?? current.vdop
        if !evidence.hdopFromGGA { current.hdop = gsa.hdop ?? current.hdop }
    }

    /// Adds a GSV: satellites in view, each read with the sentence's talker and signal ID; a satellite
    /// reported again on the same signal replaces its earlier entry.
    @inline(__always)
    public mutating func add(_ gsv: NMEAGSV, talker: NMEATalker, onEpoch: (NMEAEpoch) -> Void) {
        join(.gsv, time: nil, onEpoch: onEpoch)
        for var satellite in gsv.satellites {
            satellite.id = NMEASatelliteID(prn: satellite.prn, talker: talker)
            satellite.signalID = gsv.signalID
            if let index = current.satellites.firstIndex(where: { $0.id == satellite.id && $0.signalID == satellite.signalID }) {
                current.satellites[index] = satellite
            } else {
                current.satellites.append(satellite)
            }
        }
    }

    /// Adds a GLL: position and status (no fix when its FAA mode says `N`, not valid).
    @inline(__always)
    public mutating func add(_ gll: NMEAGLL, talker: NMEATalker, onEpoch: (NMEAEpoch) -> Void) {
        guard join(.gll, time: gll.time, onEpoch: onEpoch) else { return leftOut(.gll, talker: talker) }
        setTalker(talker)
        if Self.isValidData(gll.isValid, faaMode: gll.faaMode) { setPosition(gll.latitude, gll.longitude) }
        setStatus(gll.isValid, faaMode: gll.faaMode)
        ended(.gll, talker: talker, onEpoch: onEpoch)
    }

    /// Adds a VTG: track and speed (ignored when its FAA mode says `N`, not valid).
    @inline(__always)
    public mutating func add(_ vtg: NMEAVTG, onEpoch: (NMEAEpoch) -> Void) {
        join(.vtg, time: nil, onEpoch: onEpoch)
        if vtg.faaMode != 0x4E {
            current.track = vtg.trackTrue ?? current.track
            current.speed = vtg.speed ?? current.speed
        }
    }

    /// Adds a GST: 1-sigma latitude, longitude and altitude errors.
    @inline(__always)
    public mutating func add(_ gst: NMEAGST, onEpoch: (NMEAEpoch) -> Void) {
        guard join(.gst, time: gst.time, onEpoch: onEpoch) else { return leftOut(.gst) }
        current.gstLatitudeError = gst.latitudeError ?? current.gstLatitudeError
        current.gstLongitudeError = gst.longitudeError ?? current.gstLongitudeError
        current.gstAltitudeError = gst.altitudeError ?? current.gstAltitudeError
        ended(.gst, onEpoch: onEpoch)
    }

    /// Adds a ZDA: the date.
    @inline(__always)
    public mutating func add(_ zda: NMEAZDA, onEpoch: (NMEAEpoch) -> Void) {
        guard join(.zda, time: zda.time, onEpoch: onEpoch) else { return leftOut(.zda) }
        setDate(zda.date)
        ended(.zda, onEpoch: onEpoch)
    }

    /// Adds a GNS: position, per-constellation mode, satellites used, HDOP, altitude, geoid separation.
    @inline(__always)
    public mutating func add(_ gns: NMEAGNS, talker: NMEATalker, onEpoch: (NMEAEpoch) -> Void) {
        guard join(.gns, time: gns.time, onEpoch: onEpoch) else { return leftOut(.gns, talker: talker) }
        setTalker(talker)
        if gns.modes.utf8.contains(0x53) { evidence.simulated = true }
        if !gns.modes.isEmpty { evidence.gnsFix = (evidence.gnsFix ?? false) || gns.hasFix }
        setPosition(gns.latitude, gns.longitude)
        current.satellitesUsed = gns.satellitesUsed ?? current.satellitesUsed
        if let hdop = gns.hdop, !evidence.hdopFromGGA { current.hdop = hdop }
        current.altitudeMSL = current.altitudeMSL ?? gns.altitudeMSL
        current.geoidSeparation = current.geoidSeparation ?? gns.geoidSeparation
        ended(.gns, talker: talker, onEpoch: onEpoch)
    }

    /// Adds an HDT: true heading (kept apart from the course over ground).
    @inline(__always)
    public mutating func add(_ hdt: NMEAHDT, onEpoch: (NMEAEpoch) -> Void) {
        join(.hdt, time: nil, onEpoch: onEpoch)
        current.heading = hdt.heading ?? current.heading
    }

    /// Adds a Garmin `$PGRME`: the receiver's estimated horizontal and vertical errors.
    @inline(__always)
    public mutating func add(_ pgrme: NMEAPGRME, onEpoch: (NMEAEpoch) -> Void) {
        join(.pgrme, time: nil, onEpoch: onEpoch)
        current.estimatedHorizontalError = pgrme.horizontalError ?? current.estimatedHorizontalError
        current.estimatedVerticalError = pgrme.verticalError ?? current.estimatedVerticalError
    }

    /// Adds a Garmin `$PGRMZ`: altitude in feet (used when GGA gave none, as it is the coarser) and fix dimension.
    @inline(__always)
    public mutating func add(_ pgrmz: NMEAPGRMZ, onEpoch: (NMEAEpoch) -> Void) {
        join(.pgrmz, time: nil, onEpoch: onEpoch)
        current.altitudeMSL = current.altitudeMSL ?? pgrmz.altitudeMSL
        evidence.pgrmzDimension = pgrmz.dimension ?? evidence.pgrmzDimension
    }

    /// Adds a SiRF `$PSRFEPE`: the receiver's estimated errors for the fix of its time (when valid).
    @inline(__always)
    public mutating func add(_ epe: NMEAPSRFEPE, onEpoch: (NMEAEpoch) -> Void) {
        guard join(.psrfepe, time: epe.time, onEpoch: onEpoch) else { return leftOut(.psrfepe) }
        if epe.isValid == true {
            current.estimatedHorizontalError = epe.horizontalError ?? current.estimatedHorizontalError
            current.estimatedVerticalError = epe.verticalError ?? current.estimatedVerticalError
        }
        ended(.psrfepe, onEpoch: onEpoch)
    }

    /// The latest position of the cycle wins, as in gpsd: receivers print the freshest solution last.
    private mutating func setPosition(_ latitude: Double?, _ longitude: Double?) {
        guard let latitude, let longitude else { return }
        current.latitude = latitude
        current.longitude = longitude
    }

    /// Whether an RMC's or GLL's position may be used: not when its status says `V` or its FAA mode `N`
    /// (gpsd takes their position only from valid data; a GGA of the cycle may have a fix beside it).
    private static func isValidData(_ valid: Bool?, faaMode: UInt8?) -> Bool {
        valid != false && faaMode != 0x4E
    }

    /// RMC/GLL status: `A` is a fix unless the FAA mode says `N` (not valid); `S` marks simulated data.
    private mutating func setStatus(_ valid: Bool?, faaMode: UInt8?) {
        if faaMode == 0x53 { evidence.simulated = true }
        guard valid != nil || faaMode == 0x4E else { return }
        let fix = valid == true && faaMode != 0x4E
        evidence.status = (evidence.status ?? false) || fix
    }

    private mutating func setDate(_ date: NMEADate?) {
        guard let date else { return }
        current.year = date.year
        current.month = date.month
        current.day = date.day
    }
}
