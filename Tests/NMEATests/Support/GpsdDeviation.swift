/// A rule by which the decoder deliberately reports something other than gpsd 3.22.
///
/// The conformance test accepts a difference only when a rule listed for that log explains it, and checks
/// that it is exactly that difference (e.g. gpsd's value is the one of the previous cycle). The NMEA module's
/// GpsdConformance article tells users why each rule gives them the better answer.
enum GpsdDeviation: Hashable, CaseIterable {
    /// gpsd reports some cycles before their last sentences arrive, and keeps values of earlier cycles
    /// that a cycle does not repeat (mode, HDOP, altitude), so its report can carry the previous cycle's
    /// values. The decoder reports each cycle from its own sentences. Accepted: gpsd's value is the one
    /// the decoder reported for that field in an earlier cycle, and the decoder's own value differs or is absent.
    case valuesFromEarlierCycles
    /// gpsd reports a cycle at the sentence it takes for the cycle's end, which may come before the cycle's
    /// last sentences (a later position, VTG's speed and track); the decoder reports the whole cycle, with its
    /// latest position. Accepted: gpsd's position is one that a sentence of the same cycle printed, and its
    /// speed and track are those derived from the previous cycle's position to such a position.
    case reportedBeforeCycleEnd
    /// Garmin's `$PGRMZ` altitude is in whole feet; GGA's, in decimetres, wins in its cycle. gpsd takes
    /// whichever came last, often the next cycle's `$PGRMZ`. Accepted: gpsd's altitude is a `$PGRMZ` one
    /// within half a foot of the decoder's.
    case preciseAltitudeOverPGRMZ
    /// The receiver's own error estimate (GST pseudorange statistics, Garmin `$PGRME`) sets the accuracy;
    /// gpsd's `eph` is always HDOP × a fixed range error. Accepted: gpsd's `eph` is the decoder's HDOP-based one.
    case receiverErrorEstimates
    /// The decoder has no geoid model: without the receiver's geoid separation there is no height above
    /// the ellipsoid. gpsd fills one from a coarse global grid. Accepted: ours is absent, gpsd's present.
    case noGeoidModel
    /// Simulated data (GGA quality 8, FAA mode `S`) is never a fix; gpsd reports it as one when GGA says so.
    /// Accepted: gpsd's simulated (status 8) fixes are absent from the decoder's epochs.
    case simulatedFixIsNoFix
    /// When the time of day steps back without a new date (two captures joined, a receiver glitch), the
    /// decoder keeps the date and derives no motion across the step; gpsd assumes a day passed and derives a
    /// speed over it. Accepted: ours absent, gpsd's present, on the epoch after the step.
    case noMotionAcrossTimeStepBack
    /// The decoder emits a cycle's epoch at the timed sentence it learned ends the receiver's cycles, so that
    /// a live fix is not held until the next cycle. A receiver whose cycles end differently (a 10 Hz GGA with
    /// a 1 Hz RMC after the whole second's; a multiplexer that prints the last second's GGA first) sends a
    /// timed sentence after that epoch went out, once per sentence type: it is left out, and the type ends no
    /// cycle again. gpsd reports the cycle again with it. Accepted: the decoder left sentences out
    /// (``NMEADecoderStatistics/sentencesAfterTheirEpoch``), at most a speed and a track per sentence left
    /// out differ, and ours are derived from the previous fix or absent.
    case sentenceAfterLearnedCycleEnd

    /// The deviations that apply to one corpus log.
    static func applying(to log: String) -> Set<GpsdDeviation> {
        table[log] ?? []
    }

    private static let table: [String: Set<GpsdDeviation>] = [
        "GPSmap-76S.log": [.simulatedFixIsNoFix],
        "ais-nmea.log": [.valuesFromEarlierCycles],
        "bt451.log": [.valuesFromEarlierCycles, .noMotionAcrossTimeStepBack],
        "bundg_zeus_9.log": [.valuesFromEarlierCycles, .reportedBeforeCycleEnd, .sentenceAfterLearnedCycleEnd],
        "com-1289.log": [.valuesFromEarlierCycles],
        "eXplorist210.log": [.valuesFromEarlierCycles, .noGeoidModel],
        "foretrex-201.log": [.receiverErrorEstimates, .preciseAltitudeOverPGRMZ],
        "garmin-geko201.log": [.simulatedFixIsNoFix],
        "garmin38.log": [.receiverErrorEstimates],
        "garmin48.log": [.receiverErrorEstimates, .valuesFromEarlierCycles],
        "humminbird-M37.log": [.valuesFromEarlierCycles, .reportedBeforeCycleEnd, .noGeoidModel],
        "iTrek.log": [.valuesFromEarlierCycles, .noGeoidModel],
        "isync.log": [.receiverErrorEstimates],
        "magellan315.log": [.noGeoidModel],
        "myguide-3100.log": [.noGeoidModel],
        "nl2008u.log": [.valuesFromEarlierCycles],
        "nl551e.log": [.valuesFromEarlierCycles],
        "polarx2.log": [.receiverErrorEstimates],
        "quectelLC79D-1.log": [.valuesFromEarlierCycles, .noGeoidModel],
        "rst39.log": [.noGeoidModel, .sentenceAfterLearnedCycleEnd],
        "skytraq-dgps.log": [.receiverErrorEstimates],
        "skytraq-fixB.log": [.receiverErrorEstimates],
        "ublox-lea-4h.log": [.valuesFromEarlierCycles],
        "ublox-zed-f9p-nmea.log": [.receiverErrorEstimates],
    ]
}
