import FerryTestSupport
import Testing

@testable import FerryWorker

@Suite("buffer pool", .tags(.fast))
struct BufferPoolTests {
    @Test("never more buffers than the limit, however many transfers ask; waiters get released buffers")
    func bounded() async throws {
        let pool = BufferPool(size: 64 * 1024, limit: 4)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await pool.withBuffer { buffer in
                        #expect(buffer.bytes.count == 64 * 1024)
                        // Every byte is written before it is read: no zero-fill needed.
                        buffer.bytes.initializeMemory(as: UInt8.self, repeating: 7)
                        // Held a moment, as a transfer holds it, so the 200 queue for the pool's four.
                        try await Task.sleep(for: .milliseconds(1))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(pool.peakAllocated == 4)
        #expect(pool.allocated == 4)
        #expect(pool.lent == 0)
    }

    @Test("a fifth holder waits until one of four releases, and then gets that very buffer")
    func waits() async throws {
        let pool = BufferPool(size: 4096, limit: 4)
        var held = [BufferPool.Buffer]()
        for _ in 0..<4 { held.append(await pool.acquire()) }
        let fifth = Task { await pool.acquire() }
        try await eventually(timeout: .seconds(60), "the fifth holder to wait") { pool.waiting == 1 }
        #expect(pool.allocated == 4)
        #expect(pool.lent == 4)
        let released = held.removeLast()
        pool.release(released)
        let got = await fifth.value
        #expect(got.bytes.baseAddress == released.bytes.baseAddress)
        pool.release(got)
        for buffer in held { pool.release(buffer) }
        #expect(pool.lent == 0)
        #expect(pool.peakAllocated == 4)
    }
}
