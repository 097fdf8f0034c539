import FerryTestSupport
import Foundation
import Postgres
@testable import FerryDashboard
@testable import FerryStore
import Testing

/// A batch's bytes on the dashboard say what their total is: never a total nobody knows ("- +"), never done above
/// the total.
@Suite("dashboard batch bytes", .tags(.fast))
struct BatchBytesTests {
    static func row(done: Int64, total: Int64?, unknown: Int64) -> BatchStatusRow {
        BatchStatusRow(
            batch: "b", jobs: 32, queued: 0, running: 1, succeeded: 31, failed: 0, cancelled: 0, bytesDone: done,
            bytesTotal: total, sizesUnknown: unknown, percent: "0.0", done: false,
            enqueuedAt: PostgresTimestamp(Date(timeIntervalSince1970: 1_000)), startedAt: nil, finishedAt: nil, firstJobID: nil)
    }

    @Test("known, partly known, unknown, and done past the total")
    func forms() {
        #expect(DashboardView.batchBytes(Self.row(done: 1024, total: 2048, unknown: 0)) == "1.0 KiB / 2.0 KiB")
        #expect(DashboardView.batchBytes(Self.row(done: 44_954, total: nil, unknown: 31)) == "43.9 KiB (31 sizes unknown)")
        #expect(DashboardView.batchBytes(Self.row(done: 1024, total: 2048, unknown: 1)) == "1.0 KiB of at least 2.0 KiB (1 size unknown)")
        #expect(DashboardView.batchBytes(Self.row(done: 4096, total: 2048, unknown: 2)) == "4.0 KiB (2 sizes unknown)")
        #expect(DashboardView.batchBytes(Self.row(done: 4096, total: 2048, unknown: 0)) == "4.0 KiB (more than the 2.0 KiB expected)")
        for done: Int64 in [0, 1024, 4096] {
            for unknown: Int64 in [0, 1, 31] {
                let text = DashboardView.batchBytes(Self.row(done: done, total: unknown == 31 ? nil : 2048, unknown: unknown))
                #expect(!text.contains("-") && !text.contains("+"), "\(text)")
            }
        }
    }
}
