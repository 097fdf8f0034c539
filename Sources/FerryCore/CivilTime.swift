/// A wall-clock date and time to the minute, without a zone. Cron walks wall-clock minutes and only then maps
/// them to instants in the schedule's zone, so its arithmetic must not go through a zone (Hinnant's civil-day
/// algorithms, proleptic Gregorian).
struct CivilTime: Hashable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int

    init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
    }

    /// From seconds since 1970-01-01T00:00 on the wall clock (seconds are dropped).
    init(wallSeconds: Int64) {
        let days = Int(wallSeconds >= 0 ? wallSeconds / 86_400 : (wallSeconds - 86_399) / 86_400)
        let rest = Int(wallSeconds - Int64(days) * 86_400)
        let (y, m, d) = Self.civil(fromDays: days)
        self.init(year: y, month: m, day: d, hour: rest / 3600, minute: rest % 3600 / 60)
    }

    var wallSeconds: Int64 {
        Int64(Self.days(year: year, month: month, day: day)) * 86_400 + Int64(hour * 3600 + minute * 60)
    }

    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// 0 = Sunday … 6 = Saturday.
    static func weekday(year: Int, month: Int, day: Int) -> Int {
        let d = days(year: year, month: month, day: day)
        return ((d % 7) + 11) % 7  // 1970-01-01 was a Thursday (4)
    }

    static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
