import FerryCore
import FerryTestSupport
import Foundation
import Testing

@Suite("remote timestamps", .tags(.fast))
struct RemoteTimestampTests {
    @Test(
        "HTTP dates: IMF-fixdate only, whole seconds, calendar checked",
        arguments: [
            ("Wed, 21 Oct 2026 07:28:00 GMT", 1_792_567_680.0),
            ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
            ("Sun, 29 Feb 2032 23:59:59 GMT", 1_961_711_999),
            ("Wed, 21 Oct 2026 07:28:00 UTC", nil),
            ("Wed, 31 Feb 2026 07:28:00 GMT", nil),
            ("21 Oct 2026 07:28:00 GMT", nil),
            ("Wed, 21 Oct 2026 24:00:00 GMT", nil),
            ("", nil),
        ] as [(String, Double?)])
    func http(_ text: String, _ seconds: Double?) {
        #expect(RemoteTimestamp.http(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(
        "ISO 8601 in UTC, with or without a fraction (dropped)",
        arguments: [
            ("2026-10-21T07:28:00Z", 1_792_567_680.0),
            ("2026-10-21T07:28:00.999Z", 1_792_567_680),
            ("2026-10-21T07:28:00", nil),
            ("2026-10-21T07:28:00+02:00", nil),
            ("2026-13-01T00:00:00Z", nil),
            ("2026-10-21T07:28Z", nil),
            ("2026-10-21T07:28:00.x1Z", nil),
        ] as [(String, Double?)])
    func iso8601(_ text: String, _ seconds: Double?) {
        #expect(RemoteTimestamp.iso8601(text)?.timeIntervalSince1970 == seconds)
    }
}
