/// The GPS week number roll-over: receivers that count weeks in 10 bits report dates 1024 weeks early.
public enum NMEAWeekRollover {
    /// 1024 weeks, in days.
    public static let days = 7 * 1024

    /// `date`, moved forward by 1024 weeks as often as needed to be on or after `pivot` (unchanged without a pivot).
    public static func corrected(_ date: NMEADate, pivot: NMEADate?) -> NMEADate {
        guard let pivot else { return date }
        let limit = NMEACalendar.daysSince1970(year: pivot.year, month: pivot.month, day: pivot.day)
        var days = NMEACalendar.daysSince1970(year: date.year, month: date.month, day: date.day)
        guard days < limit else { return date }
        while days < limit { days += Self.days }
        let civil = NMEACalendar.civil(daysSince1970: days)
        return NMEADate(year: civil.year, month: civil.month, day: civil.day)
    }
}
