import FerryCore
import FerryTestSupport
import Foundation
import Testing

@Suite("retry policy and scheduling", .tags(.fast))
struct RetryPolicyTests {
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test("backoff ceilings double and stop at the cap; delays stay inside the window")
    func exponentialFullJitter() {
        let policy = RetryPolicy(baseSeconds: 2, capSeconds: 60, minimumSeconds: 0.05)
        #expect(policy.ceiling(afterAttempt: 1) == 2)
        #expect(policy.ceiling(afterAttempt: 2) == 4)
        #expect(policy.ceiling(afterAttempt: 5) == 32)
        #expect(policy.ceiling(afterAttempt: 6) == 60)
        #expect(policy.ceiling(afterAttempt: 500) == 60)
        var generator = Seeded(state: 7)
        var delays = [Double]()
        for _ in 0..<1000 {
            let delay = policy.delay(afterAttempt: 4, using: &generator)
            #expect(delay >= 0.05 && delay <= 16)
            delays.append(delay)
        }
        // Full jitter spreads over the whole window, not around its top.
        #expect(delays.min()! < 2 && delays.max()! > 14)
    }

    @Test("run-at accepts ISO 8601, now and delays")
    func scheduleTimes() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(ScheduleTime.parse("now", now: now) == now)
        #expect(ScheduleTime.parse("+90s", now: now) == now.addingTimeInterval(90))
        #expect(ScheduleTime.parse("+15m", now: now) == now.addingTimeInterval(900))
        #expect(ScheduleTime.parse("+2h", now: now) == now.addingTimeInterval(7200))
        #expect(ScheduleTime.parse("+1d", now: now) == now.addingTimeInterval(86400))
        #expect(ScheduleTime.parse("2027-01-15T08:00:00Z", now: now)?.timeIntervalSince1970 == 1800000000)
        #expect(ScheduleTime.parse("2027-01-15T09:00:00+01:00", now: now) == ScheduleTime.parse("2027-01-15T08:00:00Z", now: now))
        #expect(ScheduleTime.parse("2027-01-15T08:00:00.250Z", now: now)?.timeIntervalSince1970 == 1800000000.25)
        for bad in ["tomorrow", "+5x", "+-5m", "2027-01-15", "2027-01-15 08:00", ""] {
            #expect(ScheduleTime.parse(bad, now: now) == nil, "\(bad)")
        }
        #expect(ScheduleTime.iso8601(Date(timeIntervalSince1970: 1.5)) == "1970-01-01T00:00:01.500000Z")
    }

    @Test("UUIDv7 ids are version 7, variant 10, and ordered by time")
    func uuidV7() {
        let early = UUIDv7.make(now: Date(timeIntervalSince1970: 1_800_000_000))
        let late = UUIDv7.make(now: Date(timeIntervalSince1970: 1_800_000_001))
        let text = early.uuidString.lowercased()
        #expect(Array(text)[14] == "7")
        #expect("89ab".contains(Array(text)[19]))
        #expect(text < late.uuidString.lowercased())
    }

    @Test("a generator's ids sort in the order they were made, within one millisecond and past its 4,096th id")
    func uuidV7Sequence() {
        var ids = UUIDv7Generator(random: SystemRandomNumberGenerator())
        let made = (0..<10_000).map { _ in ids.next(milliseconds: 1_800_000_000_000).uuidString.lowercased() }
        #expect(made == made.sorted())
        #expect(Set(made).count == made.count)
        #expect(made.allSatisfy { Array($0)[14] == "7" && "89ab".contains(Array($0)[19]) })
        // A clock that goes back does not reorder them either.
        let later = ids.next(milliseconds: 1_700_000_000_000).uuidString.lowercased()
        #expect(later > made.last!)
    }
}
