import FerryCore
import FerryStore
import FerryTestSupport
import Foundation
import Postgres
@testable import FerryWorker
import Testing

/// What a worker publishes of a running transfer: the pieces its transport took, not the piece it just read for it
/// (a small file read whole for its one request showed 99.9 % from its first second).
@Suite("live progress: bytes taken, not bytes read", .tags(.fast))
struct LiveProgressLagTests {
    static func job(size: Int64) -> ClaimedJob {
        let now = PostgresTimestamp(Date())
        return ClaimedJob(
            jobID: UUID(), lease: 1, attempt: 1, maxAttempts: 3, kind: .upload, queue: "q", batch: "b", source: "/srv/a",
            destination: "dropbox:box:/a", bytesTotal: size, enqueuedAt: now, claimedAt: now, runAt: now)
    }

    @Test("a one-piece file shows nothing until its request is answered; a many-piece one shows the pieces taken")
    func lagsOnePiece() {
        let live = LiveProgress()
        let small = Self.job(size: 90_000)
        live.begin(small)
        live.note(small.jobID, bytes: 90_000)
        #expect(live.ahead()[small.jobID] == nil, "read whole, not yet taken: nothing to publish")
        live.recorded(small.jobID, bytes: 90_000)
        #expect(live.ahead()[small.jobID] == nil, "durable now: the views have it from the event")

        let big = Self.job(size: 1_048_576)
        live.begin(big)
        for piece in 1...3 { live.note(big.jobID, bytes: Int64(piece) * 262_144) }
        let taken: Int64 = 2 * 262_144
        #expect(live.ahead()[big.jobID]?.bytes == taken, "the third piece is read, the first two taken")
        live.note(big.jobID, bytes: 100)
        let afterRestart = live.ahead()[big.jobID]?.bytes
        #expect(afterRestart == taken, "a restarted transfer's smaller figure is ignored")
        live.recorded(big.jobID, bytes: 2 * 262_144)
        #expect(live.ahead()[big.jobID] == nil, "the progress event caught up with what was taken")
        live.note(big.jobID, bytes: 4 * 262_144)
        #expect(live.ahead()[big.jobID]?.bytes == 3 * 262_144 && live.ahead()[big.jobID]?.durable == 2 * 262_144)
        #expect(live.remaining() == 1_048_576 - 3 * 262_144, "what is left to move, of the transfers of known size")
    }
}
