import Foundation
import Postgres

/// The stored projection rows of a whole verify, streamed in job order on a second connection while the first
/// streams and folds the events: the server prints the rows on one core while the events are printed and folded
/// on the other (on one connection the two COPYs took turns, and the wall time was the sum of both sides' CPU).
///
/// The producer (the second connection's thread) hands over batches of rows and blocks while `capacity`
/// batches wait; the consumer (the verify's thread) blocks while none does. Either side may end the stream:
/// the producer with ``finish(_:)`` (an error is rethrown to the consumer), the consumer with ``cancelAndWait()``
/// (the producer's next ``put(_:)`` throws, which ends its COPY). A producer that has not started within
/// `startTimeout` (its connection waits behind a pooler's only server connection, which the consumer holds) ends
/// the verify with a clear error instead of a wait for ever.
final class StoredRowStream: @unchecked Sendable {
    /// Rows of COPY text back to back; row `i` ends (newline included) at `ends[i]`.
    struct Batch {
        var bytes: [UInt8] = []
        var ends: [Int] = []
    }

    /// Ended by the consumer: what a producer's `put` throws.
    struct Cancelled: Error {}

    private let condition = NSCondition()
    private let capacity: Int
    // Guarded by `condition`.
    private var waiting: [Batch] = []
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    private var producerDone = false
    /// The producer has its transaction on the snapshot: from now on the consumer's transaction must outlive it.
    private var started = false
    /// How long the consumer waits for the producer to start (its connection may have to wait for a pool).
    private let startTimeout: Duration

    // The consumer's position (its thread only).
    private var current = Batch()
    private var index = 0

    init(capacity: Int = 4, startTimeout: Duration = .seconds(30)) {
        self.capacity = max(1, capacity)
        self.startTimeout = startTimeout
    }

    // MARK: producer

    /// Says the producer's transaction took the snapshot; throws ``Cancelled`` when the consumer gave up first.
    func markStarted() throws {
        condition.lock()
        defer { condition.unlock() }
        if cancelled { throw Cancelled() }
        started = true
        condition.broadcast()
    }

    /// Hands over a batch; blocks while the consumer is `capacity` batches behind.
    func put(_ batch: Batch) throws {
        condition.lock()
        defer { condition.unlock() }
        while waiting.count >= capacity && !cancelled { condition.wait() }
        if cancelled { throw Cancelled() }
        started = true
        waiting.append(batch)
        condition.broadcast()
    }

    /// Ends the stream: every row was handed over, or `error` stopped the producer.
    func finish(_ error: (any Error)?) {
        condition.lock()
        defer { condition.unlock() }
        finished = true
        producerDone = true
        if failure == nil, let error, !(error is Cancelled) { failure = error }
        condition.broadcast()
    }

    // MARK: consumer

    /// Stops the producer (its next `put` throws) and, when it has started, waits until it has finished, so its
    /// transaction is over before the caller's snapshot goes away. A producer still waiting for a connection is
    /// not waited for (the consumer's own connection may be what it waits for); it stops when it gets one.
    func cancelAndWait() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        condition.broadcast()
        while started && !producerDone { condition.wait() }
    }

    /// Calls `body` with the next row and moves past it if its job id sorts before `until` (36 bytes of uuid text,
    /// as COPY prints it; nil: no bound). Returns false at the bound or at the end of the rows.
    func next(before until: [UInt8]?, _ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        while index >= current.ends.count {
            guard let batch = try take() else { return false }
            current = batch
            index = 0
        }
        let start = index == 0 ? 0 : current.ends[index - 1]
        let end = current.ends[index]
        let proceed = try current.bytes.withUnsafeBytes { bytes -> Bool in
            let row = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            if let until, !Self.sortsBefore(row, until) { return false }
            try body(row)
            return true
        }
        if proceed { index += 1 }
        return proceed
    }

    /// The next waiting batch; nil once the producer finished and every batch was taken.
    private func take() throws -> Batch? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(Double(startTimeout.components.seconds))
        while !started && !finished {
            if !condition.wait(until: deadline) && !started && !finished {
                throw FerryStoreError(
                    .connectionUnavailable,
                    "projection verify waited \(startTimeout.components.seconds) s for its second connection to the database, which never came (a pooler with one server connection for this database?)",
                    fix: "run ferry projection verify directly against PostgreSQL, not through PgBouncer, or give the pool more server connections")
            }
        }
        while waiting.isEmpty && !finished { condition.wait() }
        if let failure { throw failure }
        guard !waiting.isEmpty else { return nil }
        let batch = waiting.removeFirst()
        condition.broadcast()
        return batch
    }

    /// Whether the row's first field (a job id) sorts before `until`: uuid text compares as PostgreSQL orders
    /// uuids (bytes in order, lower-case hex).
    static func sortsBefore(_ row: UnsafeRawBufferPointer, _ until: [UInt8]) -> Bool {
        let count = min(row.count, until.count)
        for offset in 0..<count where row[offset] != until[offset] {
            return row[offset] < until[offset]
        }
        return false  // the same id (or a row cut short, which the comparison reports)
    }

    /// The producer's work, on its own connection: a read-only transaction on the verify's exported snapshot
    /// (so both sides see one state of the database), then every projection row in job order, in batches.
    static func produce(into stream: StoredRowStream, on connection: PostgresConnection, snapshot: String, batchRows: Int = 2000) throws {
        // An exported snapshot id is hex digits and dashes; SET TRANSACTION SNAPSHOT takes no bind parameter.
        guard !snapshot.isEmpty, snapshot.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw ReplayDecodingError("an exported snapshot id \(snapshot.debugDescription) is not hex digits and dashes")
        }
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try connection.execute("SET TRANSACTION SNAPSHOT '\(snapshot)'")
        try stream.markStarted()
        // The primary key's order, read along it (the chunked reads did the same by range): never a sort of the
        // whole table.
        try connection.execute("SET LOCAL jit = off; SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off")
        var batch = Batch()
        batch.bytes.reserveCapacity(batchRows * 256)
        batch.ends.reserveCapacity(batchRows)
        _ = try connection.copyOut(ReplayQueries.jobs(.all)) { row in
            batch.bytes.append(contentsOf: row)
            batch.ends.append(batch.bytes.count)
            if batch.ends.count >= batchRows {
                try stream.put(batch)
                batch = Batch()
                batch.bytes.reserveCapacity(batchRows * 256)
                batch.ends.reserveCapacity(batchRows)
            }
        }
        if !batch.ends.isEmpty { try stream.put(batch) }
        try connection.execute("COMMIT")
    }
}
