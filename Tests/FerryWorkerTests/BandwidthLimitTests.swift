import FerryTestSupport
import Testing

@testable import FerryWorker

@Suite("bandwidth limit", .tags(.fast))
struct BandwidthLimitTests {
    @Test("rates in rclone's notation")
    func parsing() {
        #expect(BandwidthLimit.parseRate("20M") == Int64(20 * 1024 * 1024))
        #expect(BandwidthLimit.parseRate("20m") == Int64(20 * 1024 * 1024))
        #expect(BandwidthLimit.parseRate("512K") == Int64(512 * 1024))
        #expect(BandwidthLimit.parseRate("1.5G") == Int64(1536 * 1024 * 1024))
        #expect(BandwidthLimit.parseRate("100") == Int64(100 * 1024), "a bare number is KiB/s, as in rclone")
        #expect(BandwidthLimit.parseRate("4096B") == 4096)
        #expect(BandwidthLimit.parseRate("off") == 0)
        #expect(BandwidthLimit.parseRate("0") == 0)
        #expect(BandwidthLimit.parseRate("") == nil)
        #expect(BandwidthLimit.parseRate("M") == nil)
        #expect(BandwidthLimit.parseRate("-1M") == nil)
        #expect(BandwidthLimit.parseRate("10X") == nil)
        #expect(BandwidthLimit.parseRate("1e3M") == nil)
    }

    @Test("spenders together stay at the rate: 4 tasks × 16 × 64 KiB at 8 MiB/s take about 0.5 s")
    func sharedBucket() async throws {
        let limit = BandwidthLimit(bytesPerSecond: 8 * 1024 * 1024)
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<16 { try await limit.spend(64 * 1024) } }
            }
            try await group.waitForAll()
        }
        // 4 MiB less the 0.8 MiB initial bucket at 8 MiB/s: 0.4 s at least (a lower bound only: a busy machine is slower).
        #expect(ContinuousClock.now - start >= .milliseconds(380))
    }
}
