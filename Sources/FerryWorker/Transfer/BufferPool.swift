import Synchronization

/// Fixed-size transfer buffers shared by a whole process: at most `limit` exist at once, whatever the number of
/// transfers, so a worker's memory for file reads stays flat (`limit × size`) as concurrency grows.
///
/// Buffers are allocated on first use, never zero-filled (every reader writes before it reads), and kept for
/// reuse: with glibc's mmap threshold lowered (`ferry worker`), a fresh buffer per read would be a fresh mapping,
/// faulted in and cleared by the kernel page by page. When all are in use, `acquire` suspends (in arrival order)
/// until one is released; holders must release on every path (`withBuffer` does).
final class BufferPool: Sendable {
    /// One buffer of the pool, lent to one holder at a time.
    struct Buffer: @unchecked Sendable {
        let bytes: UnsafeMutableRawBufferPointer
    }

    /// The process's pool: 64 × 256 KiB (16 MiB at most).
    static let shared = BufferPool(size: 256 * 1024, limit: 64)

    let size: Int
    let limit: Int
    private let state = Mutex(State())

    private struct State {
        var free: [Buffer] = []
        var allocated = 0
        var lent = 0
        var peakAllocated = 0
        var waiters: [CheckedContinuation<Buffer, Never>] = []
    }

    init(size: Int, limit: Int) {
        self.size = max(4096, size)
        self.limit = max(1, limit)
    }

    deinit {
        // Only pools made by tests go away; the shared one lives as long as the process.
        state.withLock { state in
            for buffer in state.free { buffer.bytes.deallocate() }
        }
    }

    /// Buffers allocated so far (never more than `limit`).
    var allocated: Int { state.withLock { $0.allocated } }
    /// The most buffers allocated at any time.
    var peakAllocated: Int { state.withLock { $0.peakAllocated } }
    /// Buffers lent right now.
    var lent: Int { state.withLock { $0.lent } }
    /// Holders waiting for a buffer (for tests).
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// A buffer, waiting for one to be released when all `limit` are lent.
    func acquire() async -> Buffer {
        enum Outcome { case got(Buffer), allocate, wait }
        let outcome = state.withLock { state -> Outcome in
            if let buffer = state.free.popLast() {
                state.lent += 1
                return .got(buffer)
            }
            if state.allocated < limit {
                state.allocated += 1
                state.lent += 1
                state.peakAllocated = max(state.peakAllocated, state.allocated)
                return .allocate
            }
            return .wait
        }
        switch outcome {
        case .got(let buffer):
            return buffer
        case .allocate:
            return Buffer(bytes: .allocate(byteCount: size, alignment: 4096))
        case .wait:
            return await withCheckedContinuation { continuation in
                // Re-checked under the lock: a release may have come in between.
                let ready = state.withLock { state -> Buffer? in
                    if let buffer = state.free.popLast() {
                        state.lent += 1
                        return buffer
                    }
                    state.waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }

    /// Gives `buffer` back: straight to the oldest waiter, else to the free list.
    func release(_ buffer: Buffer) {
        let waiter = state.withLock { state -> CheckedContinuation<Buffer, Never>? in
            if state.waiters.isEmpty {
                state.free.append(buffer)
                state.lent -= 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: buffer)
    }

    /// Runs `body` with a buffer, released afterwards whatever happens.
    func withBuffer<T: Sendable>(_ body: (Buffer) async throws -> T) async rethrows -> T {
        let buffer = await acquire()
        defer { release(buffer) }
        return try await body(buffer)
    }
}
