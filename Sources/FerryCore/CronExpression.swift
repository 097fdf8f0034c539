/// A standard 5-field cron expression (minute hour day-of-month month day-of-week): lists (`1,15`), ranges
/// (`1-5`), steps (`*/15`, `10-50/20`, `5/10`), month names (`jan`…`dec`), day names (`sun`…`sat`, 0 and 7 both
/// Sunday) and the macros `@hourly`, `@daily`/`@midnight`, `@weekly`, `@monthly`, `@yearly`/`@annually`.
///
/// Day of month and day of week combine as in Vixie cron: when both are restricted a day matches either; when
/// one is `*` only the other counts.
public struct CronExpression: Sendable, Hashable, CustomStringConvertible {
    /// The expression as written (macros kept), for display.
    public let text: String
    let minutes: Set<Int>
    let hours: Set<Int>
    let daysOfMonth: Set<Int>
    let months: Set<Int>
    /// 0 = Sunday … 6 = Saturday (7 is folded into 0).
    let daysOfWeek: Set<Int>
    let domRestricted: Bool
    let dowRestricted: Bool

    public var description: String { text }

    static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]
    static let macros = [
        "@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0",
        "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
    ]

    /// Parses `text`, naming the field and the problem when it is not a valid expression.
    public init(_ text: String) throws(ValidationIssue) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let expanded = Self.macros[trimmed] ?? trimmed
        let fields = expanded.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 5 else {
            throw ValidationIssue(
                field: "--cron", problem: "'\(text)' has \(fields.count) field(s), not 5",
                fix: "write minute hour day-of-month month day-of-week, for example \"0 * * * *\" (hourly) or \"30 6 * * mon-fri\"")
        }
        self.text = text.trimmingCharacters(in: .whitespaces)
        minutes = try Self.field(fields[0], name: "minute", range: 0...59, names: [])
        hours = try Self.field(fields[1], name: "hour", range: 0...23, names: [])
        daysOfMonth = try Self.field(fields[2], name: "day of month", range: 1...31, names: [])
        months = try Self.field(fields[3], name: "month", range: 1...12, names: Self.monthNames, firstName: 1)
        let dow = try Self.field(fields[4], name: "day of week", range: 0...7, names: Self.dayNames, firstName: 0)
        daysOfWeek = Set(dow.map { $0 % 7 })
        domRestricted = !fields[2].hasPrefix("*")
        dowRestricted = !fields[4].hasPrefix("*")
    }

    static func field(
        _ text: String, name: String, range: ClosedRange<Int>, names: [String], firstName: Int = 0
    ) throws(ValidationIssue) -> Set<Int> {
        func bad(_ problem: String) -> ValidationIssue {
            ValidationIssue(
                field: "--cron", problem: "\(name) field '\(text)': \(problem)",
                fix: "use numbers \(range.lowerBound)-\(range.upperBound)"
                    + (names.isEmpty ? "" : " or names (\(names.first!)…\(names.last!))")
                    + ", *, lists a,b, ranges a-b and steps */n or a-b/n")
        }
        func value(_ token: Substring) throws(ValidationIssue) -> Int {
            if let number = Int(token), token.allSatisfy(\.isNumber) {
                guard range.contains(number) else { throw bad("\(number) is out of range") }
                return number
            }
            if let index = names.firstIndex(of: String(token)) { return index + firstName }
            throw bad("'\(token)' is not a number" + (names.isEmpty ? "" : " or a name"))
        }
        var result = Set<Int>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard !part.isEmpty else { throw bad("empty list item") }
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else { throw bad("more than one /") }
            var step = 1
            if pieces.count == 2 {
                guard let n = Int(pieces[1]), pieces[1].allSatisfy(\.isNumber), n >= 1, n <= range.upperBound + 1 else {
                    throw bad("step '\(pieces[1])' must be a number from 1 to \(range.upperBound + 1)")
                }
                step = n
            }
            let base = pieces[0]
            let low: Int
            let high: Int
            if base == "*" {
                low = range.lowerBound
                high = range.upperBound == 7 ? 6 : range.upperBound
            } else if let dash = base.firstIndex(of: "-") {
                low = try value(base[..<dash])
                high = try value(base[base.index(after: dash)...])
                guard low <= high else { throw bad("range \(low)-\(high) runs backwards") }
            } else {
                low = try value(base)
                // `5/10` means from 5 to the end, every 10.
                high = pieces.count == 2 ? range.upperBound : low
            }
            result.formUnion(stride(from: low, through: high, by: step))
        }
        return result
    }

    func matchesDay(year: Int, month: Int, day: Int) -> Bool {
        let dayOfWeek = CivilTime.weekday(year: year, month: month, day: day)
        switch (domRestricted, dowRestricted) {
        case (true, true): return daysOfMonth.contains(day) || daysOfWeek.contains(dayOfWeek)
        case (true, false): return daysOfMonth.contains(day)
        case (false, true): return daysOfWeek.contains(dayOfWeek)
        case (false, false): return true
        }
    }

    /// The first wall-clock minute at or after `wall` (local seconds, as if UTC) that matches, or nil when none
    /// within `years` years (an expression such as `0 0 30 2 *` never matches).
    func nextWallMinute(atOrAfter wall: Int64, years: Int = 8) -> Int64? {
        var t = CivilTime(wallSeconds: wall.roundedUpToMinute)
        let limitYear = t.year + years
        while t.year <= limitYear {
            guard months.contains(t.month) else {
                t = t.month == 12 ? CivilTime(year: t.year + 1, month: 1, day: 1) : CivilTime(year: t.year, month: t.month + 1, day: 1)
                continue
            }
            guard t.day <= CivilTime.daysIn(year: t.year, month: t.month), matchesDay(year: t.year, month: t.month, day: t.day) else {
                t = CivilTime(wallSeconds: CivilTime(year: t.year, month: t.month, day: t.day).wallSeconds + 86_400)
                continue
            }
            guard let hour = hours.filter({ $0 >= t.hour }).min() else {
                t = CivilTime(wallSeconds: CivilTime(year: t.year, month: t.month, day: t.day).wallSeconds + 86_400)
                continue
            }
            if hour > t.hour {
                t.hour = hour
                t.minute = 0
            }
            guard let minute = minutes.filter({ $0 >= t.minute }).min() else {
                t = CivilTime(wallSeconds: t.wallSeconds - Int64(t.minute) * 60 + 3600)
                continue
            }
            t.minute = minute
            return t.wallSeconds
        }
        return nil
    }
}

extension Int64 {
    fileprivate var roundedUpToMinute: Int64 {
        let r = self % 60
        return r == 0 ? self : self + (r < 0 ? -r : 60 - r)
    }
}
