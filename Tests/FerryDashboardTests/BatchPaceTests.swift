import FerryTestSupport
import Foundation
import Postgres
@testable import FerryDashboard
@testable import FerryStore
import Testing

/// A batch's ETA on the dashboard says why it is not known rather than showing nothing.
@Suite("dashboard batch ETA", .tags(.fast))
struct BatchPaceTests {
    static func row(started: Bool, succeeded: Int64, sizesUnknown: Int64, bytesDone: Int64 = 0) -> BatchStatusRow {
        BatchStatusRow(
            batch: "b", jobs: 4, queued: 4 - succeeded, running: 0, succeeded: succeeded, failed: 0, cancelled: 0, bytesDone: bytesDone,
            bytesTotal: sizesUnknown == 4 ? nil : 4000, sizesUnknown: sizesUnknown, percent: "0.0", done: false,
            enqueuedAt: PostgresTimestamp(Date(timeIntervalSince1970: 1_000)),
            startedAt: started ? PostgresTimestamp(Date(timeIntervalSince1970: 1_000)) : nil, finishedAt: nil, firstJobID: nil)
    }

    @Test("not started, sizes unknown with nothing finished, and a known estimate")
    func reasons() {
        let now = Date(timeIntervalSince1970: 1_010)
        #expect(BatchPace(Self.row(started: false, succeeded: 0, sizesUnknown: 4), now: now).etaText == "unknown (not started)")
        #expect(BatchPace(Self.row(started: true, succeeded: 0, sizesUnknown: 4), now: now).etaText
            == "unknown (sizes unknown, no job finished yet)")
        let known = BatchPace(Self.row(started: true, succeeded: 2, sizesUnknown: 0, bytesDone: 2000), now: now)
        #expect(known.etaSeconds == 10 && known.etaUnknown == nil && known.etaText == "10 s")
    }
}
