import FerryTestSupport
@testable import FerryStore
import Foundation
import Testing

/// The hand-over between a whole-log verify's two connections, without a database: order, bounds, back-pressure,
/// an error on either side.
@Suite("stored row stream", .tags(.fast))
struct StoredRowStreamTests {
    /// Rows "<id>\t<n>\n" with ids 000…, 001… as uuid-like text (36 bytes, sorting as their numbers).
    static func row(_ n: Int) -> [UInt8] {
        Array(String(format: "%08d-0000-0000-0000-000000000000\t%d\n", n, n).utf8)
    }

    static func batch(_ range: Range<Int>) -> StoredRowStream.Batch {
        var batch = StoredRowStream.Batch()
        for n in range {
            batch.bytes += row(n)
            batch.ends.append(batch.bytes.count)
        }
        return batch
    }

    @Test("rows come in order, each chunk up to its bound, the rest after the last; a producer ahead waits")
    func boundsAndOrder() throws {
        let stream = StoredRowStream(capacity: 2)
        let produced = Thread {
            for start in stride(from: 0, to: 100, by: 10) { try? stream.put(Self.batch(start..<start + 10)) }
            stream.finish(nil)
        }
        produced.start()
        var seen = [Int]()
        func take(until: Int?) throws {
            let bound = until.map { Array(Self.row($0).prefix(36)) }
            while try stream.next(before: bound, { row in
                seen.append(Int(String(decoding: row.prefix(8), as: UTF8.self))!)
            }) {}
        }
        try take(until: 25)
        #expect(seen == Array(0..<25), "rows before the bound, the bound's own row left for the next chunk")
        try take(until: 25)
        #expect(seen.count == 25, "a chunk with nothing before its bound takes nothing")
        try take(until: 71)
        try take(until: nil)
        #expect(seen == Array(0..<100))
        stream.cancelAndWait()
    }

    @Test("a consumer that stops early ends the producer, which is waiting on a full stream; a producer's error reaches the consumer")
    func endings() throws {
        let stream = StoredRowStream(capacity: 1)
        let ended = NSCondition()
        nonisolated(unsafe) var producerError: (any Error)?
        nonisolated(unsafe) var done = false
        Thread {
            do {
                for start in stride(from: 0, to: 1_000_000, by: 10) { try stream.put(Self.batch(start..<start + 10)) }
            } catch {
                producerError = error
            }
            stream.finish(producerError)
            ended.lock(); done = true; ended.broadcast(); ended.unlock()
        }.start()
        #expect(try stream.next(before: nil) { _ in })
        stream.cancelAndWait()
        ended.lock()
        while !done { ended.wait() }
        ended.unlock()
        #expect(producerError is StoredRowStream.Cancelled, "the producer's put threw once the consumer stopped")

        struct Broken: Error {}
        let failing = StoredRowStream()
        try failing.put(Self.batch(0..<1))
        failing.finish(Broken())
        #expect(throws: Broken.self) {
            while try failing.next(before: nil, { _ in }) {}
        }
    }

    @Test("a producer that never starts (its connection never comes) is not waited for: a clear error after the start timeout")
    func neverStarted() throws {
        let stream = StoredRowStream(startTimeout: .seconds(1))
        do {
            _ = try stream.next(before: nil) { _ in }
            Issue.record("next() returned without a producer")
        } catch let error as FerryStoreError {
            #expect(error.code == .connectionUnavailable)
            #expect(error.description.contains("second connection") && error.description.contains("PgBouncer"))
        }
        stream.cancelAndWait()  // returns at once: nothing started
        // The producer that comes late finds the verify gone.
        #expect(throws: StoredRowStream.Cancelled.self) { try stream.markStarted() }
    }
}
