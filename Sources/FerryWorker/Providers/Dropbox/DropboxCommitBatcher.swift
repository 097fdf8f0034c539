import FerryDropbox
import FerryStore
import Foundation
import Logging
import Synchronization

/// Commits the closed upload sessions of concurrent jobs together: one `upload_session/finish_batch_v2` per account
/// carries up to ``maxEntries`` of them, so Dropbox takes the account's namespace lock once instead of once per file
/// (many single commits to one account contend and get `too_many_write_operations`).
///
/// An account's entries gather until ``maxEntries`` wait, or every upload of that account running in this process is
/// waiting (nothing more can come), or ``window`` has passed since the oldest arrived; then one call commits them
/// while the next entries gather. One call per account at a time: Dropbox serializes commits per namespace anyway.
/// Each entry's answer goes to its own job; entries that met write contention go into the next call. An entry
/// whose job's lease lapsed meanwhile (see ``JobContext/ensureLease(before:margin:)``) is left out of every call
/// from then on: its job stops with ``LeaseLapsed``, and the other entries are committed without it.
final class DropboxCommitBatcher: Sendable {
    /// How long the first entry of a batch waits for others at most.
    let window: Duration
    /// Entries per call; Dropbox accepts up to 1,000.
    let maxEntries: Int
    /// How often a whole call, or one entry, is retried after write contention before the job is deferred.
    let contentionRetries = 6
    let tokens: AccountTokenProvider
    /// One batch call per account at a time across the fleet, not only in this process.
    let turns: AccountTurns

    private struct Entry: Sendable {
        let sessionID: String
        let offset: Int64
        let commit: DropboxCommitInfo
        /// The entry's job: its lease is checked right before each call that would carry the entry.
        let context: JobContext
        let arrived: ContinuousClock.Instant
        let continuation: CheckedContinuation<DropboxFileMetadata, any Error>
        var contentionTries = 0
    }

    private struct AccountQueue: Sendable {
        var entries: [Entry] = []
        /// A task is gathering and committing this account's entries.
        var running = false
        /// Uploads of this account running in this process (see ``participating(_:_:)``).
        var uploads = 0
    }

    private let queues = Mutex<[String: AccountQueue]>([:])

    init(tokens: AccountTokenProvider, window: Duration = .milliseconds(50), maxEntries: Int = 1000, turns: AccountTurns = AccountTurns(store: nil)) {
        self.tokens = tokens
        self.turns = turns
        self.window = window
        self.maxEntries = min(1000, max(1, maxEntries))
    }

    /// Runs one upload of `account`, counted so a batch does not wait for uploads that are all waiting already.
    func participating<T: Sendable>(_ account: String, _ body: () async throws -> T) async throws -> T {
        queues.withLock { $0[account, default: AccountQueue()].uploads += 1 }
        defer {
            queues.withLock { queues in
                queues[account]?.uploads -= 1
                if let queue = queues[account], queue.uploads == 0, !queue.running, queue.entries.isEmpty { queues[account] = nil }
            }
        }
        return try await body()
    }

    /// Commits one closed session in the account's next batch. Throws the entry's own failure or the whole call's,
    /// as ``DropboxError`` (or a `JobFailure` when the account cannot be used).
    func commit(account: String, sessionID: String, offset: Int64, commit: DropboxCommitInfo, context: JobContext) async throws
        -> DropboxFileMetadata
    {
        let (logger, metrics) = (context.logger, context.metrics)
        return try await withCheckedThrowingContinuation { continuation in
            let entry = Entry(sessionID: sessionID, offset: offset, commit: commit, context: context, arrived: .now, continuation: continuation)
            let start = queues.withLock { queues -> Bool in
                queues[account, default: AccountQueue()].entries.append(entry)
                guard !queues[account]!.running else { return false }
                queues[account]!.running = true
                return true
            }
            // Unstructured: the batch belongs to no single job, and it ends once the account's queue is empty.
            if start { Task { await self.run(account, logger: logger, metrics: metrics) } }
        }
    }

    /// Gathers and commits the account's entries until none are left.
    private func run(_ account: String, logger: Logger, metrics: WorkerMetrics) async {
        var caller = DropboxCaller(account: account, tokens: tokens, logger: logger)
        // The request slot is taken before the fleet-wide turn, never while holding it: a turn held through a wait
        // for a slot would stall every other process's commits, and their jobs would hold budget they cannot use.
        caller.firstSlotTaken = true
        while let batch = await gather(account) {
            do {
                try await tokens.pacer.awaitSlot(account: account)
                try await turns.exclusive(AccountCommitGate.scope(account)) { [caller] in
                    await commit(batch, caller: caller, account: account, logger: logger, metrics: metrics)
                }
            } catch {
                // No turn (the database is unreachable): the call was not made; each job retries its commit.
                for entry in batch { entry.continuation.resume(throwing: error) }
            }
        }
    }

    /// The next batch once it is due; nil (and the account's task marked stopped) when nothing is waiting.
    private func gather(_ account: String) async -> [Entry]? {
        while true {
            let (batch, wait) = queues.withLock { queues -> ([Entry]?, Duration) in
                guard var queue = queues[account], let oldest = queue.entries.first?.arrived else {
                    queues[account]?.running = false
                    return (nil, .zero)
                }
                let waited = ContinuousClock.now - oldest
                guard queue.entries.count >= maxEntries || queue.entries.count >= queue.uploads || waited >= window else {
                    // Checked again soon: an upload finishing its data, or the window ending, makes the batch due.
                    return (nil, min(window - waited, .milliseconds(2)))
                }
                let batch = Array(queue.entries.prefix(maxEntries))
                queue.entries.removeFirst(batch.count)
                queues[account] = queue
                return (batch, .zero)
            }
            if let batch { return batch }
            guard wait > .zero else { return nil }
            try? await Task.sleep(for: wait)
        }
    }

    /// One `finish_batch_v2` call (retried as a whole on write contention), each answer handed to its job.
    private func commit(_ batch: [Entry], caller: DropboxCaller, account: String, logger: Logger, metrics: WorkerMetrics) async {
        var batch = batch
        var tries = 0
        var results: [Result<DropboxFileMetadata, DropboxError>] = []
        while true {
            batch = Self.fenced(batch)
            guard !batch.isEmpty else { return }
            let (arguments, contexts) = (batch.map { (sessionID: $0.sessionID, offset: $0.offset, commit: $0.commit) }, batch.map(\.context))
            do {
                metrics.dropboxBatch(entries: batch.count)
                results = try await caller.call("committing \(batch.count) files") { client, token in
                    // Checked again on every try (a transient failure's retry comes later): a lapsed entry is left out.
                    guard contexts.allSatisfy({ $0.holdsLease() }) else { throw LeaseLapsed(before: "committing in a batch") }
                    return try await client.uploadSessionFinishBatch(arguments, accessToken: token)
                }
                break
            } catch is LeaseLapsed {
                continue
            } catch let error as DropboxError where error.isWriteContention && tries < contentionRetries {
                tries += 1
                logger.notice("write contention on a batch commit; retrying it", metadata: ["entries": "\(batch.count)"])
                await Self.backOff(tries, asked: error.retryAfter)
            } catch {
                for entry in batch { entry.continuation.resume(throwing: error) }
                return
            }
        }
        var again: [Entry] = []
        var contended: DropboxError?
        for (entry, result) in zip(batch, results) {
            switch result {
            case .success(let metadata):
                entry.continuation.resume(returning: metadata)
            case .failure(let error) where error.isWriteContention && entry.contentionTries < contentionRetries:
                var retry = entry
                retry.contentionTries += 1
                again.append(retry)
                contended = error
            case .failure(let error):
                entry.continuation.resume(throwing: error)
            }
        }
        guard !again.isEmpty else { return }
        logger.notice("write contention on batch entries; committing them in the next batch", metadata: ["entries": "\(again.count)"])
        await Self.backOff(again.map(\.contentionTries).max() ?? 1, asked: contended?.retryAfter)
        // First in line for the next call.
        queues.withLock { $0[account, default: AccountQueue()].entries.insert(contentsOf: again, at: 0) }
    }

    /// The entries whose jobs still hold their lease; the others end now with ``LeaseLapsed``, never committed.
    private static func fenced(_ batch: [Entry]) -> [Entry] {
        batch.filter { entry in
            guard !entry.context.holdsLease() else { return true }
            entry.continuation.resume(throwing: LeaseLapsed(before: "committing in a batch"))
            return false
        }
    }

    /// Jittered, growing wait; at least what Dropbox asked for.
    private static func backOff(_ tries: Int, asked: Double?) async {
        let wait = max(asked ?? 0, Double.random(in: 0.05...min(2.0, 0.1 * pow(2, Double(tries)))))
        try? await Task.sleep(for: .milliseconds(Int(wait * 1000)))
    }
}
