/// ZDA — UTC time and date.
///
/// `$GPZDA,hhmmss.ss,dd,mm,yyyy,zh,zm*hh`
public struct NMEAZDA: Sendable, Hashable {
    /// UTC time of day.
    public var time: NMEATimeOfDay?
    /// UTC date, when the day, month and year fields are all present.
    public var date: NMEADate?
    /// Local zone hours offset (−13…13).
    public var zoneHours: Int?
    /// Local zone minutes offset.
    public var zoneMinutes: Int?

    /// Decodes the data fields. Time, day, month and year are required.
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(4)
        time = try fields.next().timeOfDay()
        let day = try fields.next().integer()
        let month = try fields.next().integer()
        let yearField = fields.next()
        let year = try yearField.integer()
        if let day, let month, let year {
            guard yearField.bytes.count == 4, (1980...2099).contains(year), NMEACalendar.isValid(year: year, month: month, day: day) else {
                throw yearField.error(.outOfRange)
            }
            date = NMEADate(year: year, month: month, day: day)
        }
        let zoneField = fields.next()
        if let hours = try zoneField.decimal(in: -13...13) { zoneHours = Int(hours) }
        zoneMinutes = try fields.next().integer()
    }
}
