import FerryCore
import FerryTestSupport
import Foundation
import Testing

/// The cron parser and the tick arithmetic behind `ferry schedule`, DST included.
@Suite("cron expressions and schedule ticks", .tags(.fast))
struct CronExpressionTests {
    static func date(_ text: String) -> Date { ScheduleTime.parse(text, now: Date())! }
    static func iso(_ date: Date?) -> String? { date.map(ScheduleTime.iso8601) }
    static let utc = TimeZone(identifier: "UTC")!
    static let paris = TimeZone(identifier: "Europe/Paris")!

    /// The first `count` ticks after `start`.
    static func ticks(_ cron: String, zone: TimeZone = utc, after start: String, count: Int) throws -> [String] {
        let recurrence = ScheduleRecurrence.cron(try CronExpression(cron), zone: zone)
        var out = [String]()
        var at = date(start)
        while out.count < count, let next = recurrence.next(after: at) {
            out.append(ScheduleTime.iso8601(next))
            at = next
        }
        return out
    }

    @Test("fields: lists, ranges, steps, names, 7 as Sunday, macros")
    func fields() throws {
        #expect(try Self.ticks("*/15 * * * *", after: "2026-11-24T20:52:10Z", count: 3)
            == ["2026-11-24T21:00:00Z", "2026-11-24T21:15:00Z", "2026-11-24T21:30:00Z"])
        #expect(try Self.ticks("5/20 3 * * *", after: "2026-11-24T00:00:00Z", count: 4)
            == ["2026-11-24T03:05:00Z", "2026-11-24T03:25:00Z", "2026-11-24T03:45:00Z", "2026-11-25T03:05:00Z"])
        // 2026-11-21 is a Saturday: the next weekday 09:00 is Monday the 23rd.
        #expect(try Self.ticks("0 9 * * mon-fri", after: "2026-11-21T10:00:00Z", count: 2)
            == ["2026-11-23T09:00:00Z", "2026-11-24T09:00:00Z"])
        #expect(try Self.ticks("0 12 * * 7", after: "2026-11-24T00:00:00Z", count: 1) == ["2026-11-29T12:00:00Z"])
        #expect(try Self.ticks("0 12 * * sun", after: "2026-11-24T00:00:00Z", count: 1) == ["2026-11-29T12:00:00Z"])
        #expect(try Self.ticks("30 1 1,15 jan,jul *", after: "2026-11-24T00:00:00Z", count: 3)
            == ["2027-01-01T01:30:00Z", "2027-01-15T01:30:00Z", "2027-07-01T01:30:00Z"])
        #expect(try Self.ticks("0 0-23/6 * * *", after: "2026-11-24T01:00:00Z", count: 3)
            == ["2026-11-24T06:00:00Z", "2026-11-24T12:00:00Z", "2026-11-24T18:00:00Z"])
        #expect(try Self.ticks("@hourly", after: "2026-11-24T20:00:00Z", count: 2) == ["2026-11-24T21:00:00Z", "2026-11-24T22:00:00Z"])
        #expect(try Self.ticks("@monthly", after: "2026-11-24T20:00:00Z", count: 2) == ["2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"])
        #expect(try Self.ticks("@weekly", after: "2026-11-24T20:00:00Z", count: 1) == ["2026-11-29T00:00:00Z"])
        // Ticks are strictly after the given time.
        #expect(try Self.ticks("0 * * * *", after: "2026-11-24T21:00:00Z", count: 1) == ["2026-11-24T22:00:00Z"])
    }

    @Test("day of month and day of week: either when both are restricted, only the restricted one otherwise")
    func dayFields() throws {
        // Friday the 13th style: the 13th OR any Friday (Vixie cron). 2026-11-27 is a Friday, 2026-12-13 a Sunday.
        #expect(try Self.ticks("0 0 13 * fri", after: "2026-11-25T00:00:00Z", count: 3)
            == ["2026-11-27T00:00:00Z", "2026-12-04T00:00:00Z", "2026-12-11T00:00:00Z"])
        #expect(try Self.ticks("0 0 13 * *", after: "2026-11-25T00:00:00Z", count: 1) == ["2026-12-13T00:00:00Z"])
        #expect(try Self.ticks("0 0 * * fri", after: "2026-11-25T00:00:00Z", count: 1) == ["2026-11-27T00:00:00Z"])
        // Month ends and leap days.
        #expect(try Self.ticks("0 0 31 * *", after: "2026-11-01T00:00:00Z", count: 2) == ["2026-12-31T00:00:00Z", "2027-01-31T00:00:00Z"])
        #expect(try Self.ticks("0 0 29 2 *", after: "2026-03-01T00:00:00Z", count: 1) == ["2028-02-29T00:00:00Z"])
        // Never: February 30th.
        #expect(try Self.ticks("0 0 30 2 *", after: "2026-03-01T00:00:00Z", count: 1) == [])
    }

    @Test("bad expressions name the field and the problem", arguments: [
        ("* * * *", "4 field(s)"), ("60 * * * *", "minute field '60': 60 is out of range"),
        ("* 24 * * *", "hour field"), ("* * 0 * *", "day of month field"), ("* * * 13 *", "month field"),
        ("* * * * 8", "day of week field"), ("5-1 * * * *", "runs backwards"), ("*/0 * * * *", "step"),
        ("* * * foo *", "'foo' is not a number or a name"), ("1,,2 * * * *", "empty list item"),
        ("1/2/3 * * * *", "more than one /"),
    ])
    func refused(_ text: String, _ expected: String) {
        #expect(throws: ValidationIssue.self) { try CronExpression(text) }
        do {
            _ = try CronExpression(text)
        } catch {
            #expect(error.description.contains(expected), "\(error)")
            #expect(error.field == "--cron")
        }
    }

    @Test("Europe/Paris spring forward: a tick in the skipped hour fires once, when the clock resumes")
    func springForward() throws {
        // 2026-03-29 02:00 CET becomes 03:00 CEST (01:00Z): 02:30 does not exist that day.
        #expect(try Self.ticks("30 2 * * *", zone: Self.paris, after: "2026-03-27T12:00:00Z", count: 3)
            == ["2026-03-28T01:30:00Z", "2026-03-29T01:00:00Z", "2026-03-30T00:30:00Z"])
        // Every half hour: 02:00 and 02:30 both fall in the gap and fire once, at 03:00 CEST.
        #expect(try Self.ticks("*/30 * * * *", zone: Self.paris, after: "2026-03-29T00:15:00Z", count: 3)
            == ["2026-03-29T00:30:00Z", "2026-03-29T01:00:00Z", "2026-03-29T01:30:00Z"])
        // A tick outside the gap is not moved.
        #expect(try Self.ticks("0 4 * * *", zone: Self.paris, after: "2026-03-28T12:00:00Z", count: 2)
            == ["2026-03-29T02:00:00Z", "2026-03-30T02:00:00Z"])
    }

    @Test("Europe/Paris fall back: the repeated hour fires once, at its first occurrence")
    func fallBack() throws {
        // 2026-10-25 03:00 CEST becomes 02:00 CET (01:00Z): 02:30 happens at 00:30Z and again at 01:30Z.
        #expect(try Self.ticks("30 2 * * *", zone: Self.paris, after: "2026-10-24T12:00:00Z", count: 2)
            == ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"])
        #expect(try Self.ticks("*/30 * * * *", zone: Self.paris, after: "2026-10-24T23:45:00Z", count: 4)
            == ["2026-10-25T00:00:00Z", "2026-10-25T00:30:00Z", "2026-10-25T02:00:00Z", "2026-10-25T02:30:00Z"])
        // Asked from inside the second occurrence (a worker that looks then), the repeated ticks are not fired again.
        #expect(try Self.ticks("*/30 * * * *", zone: Self.paris, after: "2026-10-25T01:10:00Z", count: 1) == ["2026-10-25T02:00:00Z"])
        // Hourly local ticks: 02:00 CEST, then 03:00 CET two hours later, never 02:00 CET.
        #expect(try Self.ticks("0 * * * *", zone: Self.paris, after: "2026-10-24T23:30:00Z", count: 3)
            == ["2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z", "2026-10-25T03:00:00Z"])
    }

    @Test("a daily local time follows the zone's offset across the change")
    func dailyLocal() throws {
        let newYork = TimeZone(identifier: "America/New_York")!
        // 2026-03-08: EST (-5) becomes EDT (-4).
        #expect(try Self.ticks("0 9 * * *", zone: newYork, after: "2026-03-07T00:00:00Z", count: 2)
            == ["2026-03-07T14:00:00Z", "2026-03-08T13:00:00Z"])
    }

    @Test("--every: ticks on multiples of the interval since the epoch; catch-up gives the latest tick and counts the rest")
    func every() {
        let hourly = ScheduleRecurrence.every(seconds: 3600)
        #expect(Self.iso(hourly.next(after: Self.date("2026-11-24T20:59:59Z"))) == "2026-11-24T21:00:00Z")
        #expect(Self.iso(hourly.next(after: Self.date("2026-11-24T21:00:00Z"))) == "2026-11-24T22:00:00Z")
        let (tick, missed) = hourly.catchUp(due: Self.date("2026-11-24T10:00:00Z"), now: Self.date("2026-11-24T13:30:00Z"))
        #expect(Self.iso(tick) == "2026-11-24T13:00:00Z" && missed == 3)
        let onTime = hourly.catchUp(due: Self.date("2026-11-24T10:00:00Z"), now: Self.date("2026-11-24T10:00:00.2Z"))
        #expect(Self.iso(onTime.tick) == "2026-11-24T10:00:00Z" && onTime.missed == 0)
        let cron = ScheduleRecurrence.cron(try! CronExpression("*/15 * * * *"), zone: Self.utc)
        let late = cron.catchUp(due: Self.date("2026-11-24T10:00:00Z"), now: Self.date("2026-11-24T11:05:00Z"))
        #expect(Self.iso(late.tick) == "2026-11-24T11:00:00Z" && late.missed == 4)
    }

    @Test("intervals parse and print back")
    func intervals() {
        #expect(ScheduleRecurrence.parseInterval("30s") == 30)
        #expect(ScheduleRecurrence.parseInterval("15m") == 900)
        #expect(ScheduleRecurrence.parseInterval("1h30m") == 5400)
        #expect(ScheduleRecurrence.parseInterval("1d") == 86_400)
        for bad in ["", "90", "1x", "0s", "h", "1.5h", "-1h"] { #expect(ScheduleRecurrence.parseInterval(bad) == nil, "\(bad)") }
        #expect(ScheduleRecurrence.formatInterval(5400) == "1h30m")
        #expect(ScheduleRecurrence.formatInterval(86_400) == "1d")
    }
}
