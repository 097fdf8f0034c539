import FerryCore
import FerryProviders
import FerryStore
import Foundation

extension FerryClient {
    /// Enqueues the uploads of every file below `root` (a tree walked here, streaming) into the folder `to`
    /// (ending in `/`), each keeping its path below `root`, in one transaction: every file or none. `template`
    /// gives the jobs' batch, queue, priority and options (its source and destination are replaced). Links,
    /// unreadable and special files are refused unless `options` says to follow or skip them.
    ///
    /// The ids are returned in walk order; for trees of millions of files use ``enqueueStream(_:options:outcomes:)``,
    /// which hands them out chunk by chunk instead.
    public func enqueueTree(
        _ root: String, to: String, template: JobRequest = JobRequest(kind: .upload, source: "", to: ""),
        options: StreamedEnqueue = StreamedEnqueue()
    ) async throws -> [EnqueuedJob] {
        let operands = EnqueueOperands(kind: .upload, operands: [root], to: to, recursive: true) { source, to in
            var request = template
            request.kind = .upload
            request.source = source
            request.to = to
            return request
        }
        var jobs = [EnqueuedJob]()
        _ = try await enqueueStream(.operands(operands), options: options) { jobs += $0 }
        return jobs
    }

    /// Streams jobs through validation into one transaction, chunk by chunk: memory stays bounded whatever the
    /// input size (a list of millions of lines, a tree of millions of files), and the result is still every job or
    /// none. Before the commit PostgreSQL looks for two jobs writing one destination; a dry run does all of it and
    /// rolls back. `ferry enqueue` is this call.
    ///
    /// - Parameter outcomes: called with each chunk's jobs once written (in input order), while the next chunk is
    ///   read; a dry run writes nothing and calls it too (the rollback comes at the end).
    /// - Throws: ``FerryClientError`` with ``FerryClientError/Code/invalidRequests`` listing the first problems
    ///   (input, validation, `expect`, colliding destinations), or the store's errors; nothing is enqueued then.
    public func enqueueStream(
        _ input: EnqueueInput, options: StreamedEnqueue = StreamedEnqueue(), outcomes: ([EnqueuedJob]) throws -> Void = { _ in }
    ) async throws -> StreamedEnqueueResult {
        let producer = JobChunkProducer(input: input, options: options, providers: providers)
        producer.start()
        do {
            return try await store.withBulkEnqueue { bulk in
                let count = try await Self.write(producer, into: bulk, outcomes: outcomes)
                // Inside the transaction: a short pipeline rolls back whole.
                if let expect = options.expect, count != expect {
                    throw Self.invalid([
                        ValidationIssue(
                            field: "--expect",
                            problem: "the input held \(count) job(s), not \(expect)\(count < expect ? ": it ended early (did the producer stop mid-stream?)" : "")",
                            fix: "run the producer again; nothing of this input was enqueued")
                    ])
                }
                let collisions = try await bulk.destinationCollisions(limit: options.maxIssues, caseFolded: providers.caseFoldedSchemes)
                let result = StreamedEnqueueResult(jobs: count, collisions: options.dryRun ? collisions : [])
                if !collisions.isEmpty && !options.dryRun { throw Self.invalid(StreamedEnqueueResult.issues(collisions)) }
                if options.dryRun { throw DryRunRollback(result: result) }
                return result
            }
        } catch let rollback as DryRunRollback {
            return rollback.result
        } catch {
            producer.stop()
            throw error
        }
    }

    /// Writes the producer's chunks, each while the next is read; returns how many jobs were written.
    private static func write(
        _ producer: JobChunkProducer, into bulk: BulkEnqueue, outcomes: ([EnqueuedJob]) throws -> Void
    ) async throws -> Int {
        var count = 0
        var pending: Task<[EnqueueOutcome], any Error>?
        var pendingSpecs = [JobSpec]()
        for await element in producer.stream {
            switch element {
            case .jobs(let chunk):
                // Hand out the previous chunk's outcomes while this one goes to the database.
                let previous = try await pending?.value
                let previousSpecs = pendingSpecs
                pending = Task { try await bulk.add(chunk) }
                pendingSpecs = chunk.specs
                producer.taken()
                if let previous {
                    try outcomes(zip(previous, previousSpecs).map { EnqueuedJob($0, spec: $1) })
                    count += previous.count
                }
            case .issues(let issues, let more):
                // Let the chunk in flight finish before the transaction is rolled back.
                _ = try? await pending?.value
                throw invalid(issues, more: more)
            }
        }
        if let last = try await pending?.value {
            try outcomes(zip(last, pendingSpecs).map { EnqueuedJob($0, spec: $1) })
            count += last.count
        }
        return count
    }

    static func invalid(_ issues: [ValidationIssue], more: Int = 0) -> FerryClientError {
        FerryClientError(
            code: .invalidRequests, issues: issues, more: more,
            message: "\(issues.count + more) problem(s) in the input; nothing was enqueued")
    }
}

/// Ends a dry run's transaction (rolled back), carrying what it found.
private struct DryRunRollback: Error {
    var result: StreamedEnqueueResult
}
