import FerryCore
import FerryStore
import Foundation
import Logging
import Prometheus
import ServiceLifecycle
import Synchronization
import Tracing

/// A worker process's engine: claims jobs with `FOR UPDATE SKIP LOCKED`, runs them through handlers,
/// heartbeats, rescues jobs of dead workers, and drains on graceful shutdown.
///
/// Many workers on many machines share one PostgreSQL and coordinate only through it.
public final class Worker: Service, Sendable {
    public let configuration: WorkerConfiguration
    /// The queue: PostgreSQL (`FerryStore`) in production, `MemoryWorkerStore` in the in-process tests.
    let store: any WorkerStore
    /// Heartbeats and registration: a connection of their own, so that a pool busy with (or blocked behind) job
    /// writes never delays the proof of life that keeps this worker's jobs from being rescued.
    let liveness: any WorkerStore
    let handlers: JobHandlers
    let logger: Logger
    let metrics: WorkerMetrics
    let readiness: WorkerReadiness?
    let running = RunningJobs()
    let wakeup: WakeupSignal
    let cancelWakeup = WakeupSignal()
    /// When slots freed, oldest first: each start takes one, to measure how long a free slot waited.
    let freedSlots = Mutex<[ContinuousClock.Instant]>([])
    /// The earliest time a job this worker put back (retry backoff, rate-limit deferral) becomes due: nobody
    /// announces that moment, so the claim loop wakes for it instead of waiting out the poll interval.
    let nextDue = Mutex<ContinuousClock.Instant?>(nil)
    /// When a claim last failed (its reply may have been lost after the commit: see `rescueLoop`).
    let lastClaimFailure = Mutex<ContinuousClock.Instant?>(nil)
    /// Outcomes recorded since this worker last folded the counters.
    let outcomesSinceFold = Atomic<Int>(0)
    /// Set when the store announced `.unheard`: no notification reaches this worker, so it polls often.
    let unheard = Mutex(false)
    /// The poll interval once notifications turned out not to arrive (behind PgBouncer without `--poll-only`).
    static let unheardPollInterval: Duration = .seconds(1)
    /// Bytes of running transfers beyond their durable progress, published by `liveProgressLoop`.
    let live = LiveProgress()
    let batcher: CompletionBatcher
    /// Whether the database accepts writes: while it refuses them (read-only, out of disk) nothing is claimed.
    let writes: DatabaseWrites
    /// Delays of jobs deferred because this machine ran short of disk space or file descriptors.
    let shortages: ShortageBackoff
    let progressBatcher: ProgressBatcher?
    /// `--bwlimit`: one bucket for every transfer of the process.
    let bandwidth: BandwidthLimit?
    /// This process's shares of its accounts' fleet budgets (`ferry account update NAME --tps-limit/--bwlimit`).
    let accountShares: AccountShares
    /// `ferry account update NAME --bwlimit`: one bucket per account for the process's transfers of it, at its share.
    let accountBandwidth: AccountBandwidthLimits
    /// Wakes the sibling scheduler when a schedule is asked to run now.
    let schedulesChanged: (@Sendable () -> Void)?
    /// How long this worker's claims are safe from rescue: renewed by heartbeats, asked before every effect.
    let lease: WorkerLease
    /// The claim loop and the outcome batcher's hand-over claim in turn.
    let claimGate = ClaimGate()

    /// - Parameters:
    ///   - store: where jobs are claimed and their outcomes recorded; it also announces new work and cancel
    ///     requests (`WorkerStore.wakeups(logger:)`: LISTEN on a connection of its own for `FerryStore`), unless
    ///     `configuration.pollOnly`.
    ///   - metricsRegistry: where the worker's Prometheus metrics go (serve it with `MetricsEndpoint`).
    ///   - readiness: told when the worker runs and when it starts draining, for `/ready`.
    ///   - liveness: the store heartbeats go through; give it a client of its own (one connection) so that job
    ///     traffic cannot hold them up. Defaults to `store`.
    ///   - schedulesChanged: called when someone asks a schedule to run now (the sibling `Scheduler.wake()`), so
    ///     the worker's one listener serves the scheduler too.
    public init(
        configuration: WorkerConfiguration, store: any WorkerStore, liveness: (any WorkerStore)? = nil, handlers: JobHandlers,
        metricsRegistry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        readiness: WorkerReadiness? = nil, schedulesChanged: (@Sendable () -> Void)? = nil, logger: Logger
    ) {
        self.configuration = configuration
        self.schedulesChanged = schedulesChanged
        self.metrics = WorkerMetrics(
            registry: metricsRegistry, queues: configuration.queues, concurrency: configuration.concurrency,
            providers: handlers.providers)
        self.readiness = readiness
        self.bandwidth = configuration.bandwidthLimit.map { BandwidthLimit(bytesPerSecond: $0) }
        let shares = handlers.shares ?? AccountShares(store: store, worker: configuration.name)
        self.accountShares = shares
        self.accountBandwidth = AccountBandwidthLimits(shares: shares)
        self.store = store
        self.liveness = liveness ?? store
        self.lease = WorkerLease(rescueAfter: configuration.rescueAfter)
        self.handlers = handlers
        var logger = logger
        logger[metadataKey: "worker"] = "\(configuration.name)"
        self.logger = logger
        let wakeup = WakeupSignal()
        self.wakeup = wakeup
        let metrics = self.metrics
        let writes = DatabaseWrites(logger: logger) { refusal in
            readiness?.databaseRefusesWrites(refusal.map(DatabaseWrites.reason))
            metrics.databaseWritable(refusal == nil)
            if refusal == nil { wakeup.notify() }
        }
        self.writes = writes
        self.shortages = ShortageBackoff(policy: configuration.shortageBackoff)
        self.batcher = CompletionBatcher(
            store: store, batchSize: configuration.completionBatchSize,
            flushInterval: configuration.completionFlushInterval, logger: logger, claimsEnded: { wakeup.notify() }, writes: writes)
        self.progressBatcher = configuration.batchProgress
            ? ProgressBatcher(
                store: store, batchSize: configuration.completionBatchSize, flushInterval: configuration.completionFlushInterval,
                logger: logger, writes: writes)
            : nil
    }

    public func run() async throws {
        let registration = WorkerRegistration(
            name: configuration.name, queues: configuration.queues, concurrency: configuration.concurrency,
            host: ProcessInfo.processInfo.hostName, pid: ProcessInfo.processInfo.processIdentifier)
        try await withDatabaseRetry(logger: logger, writes: writes) {
            let sent = ContinuousClock.now
            try await self.liveness.register(registration)
            self.lease.renewed(sentAt: sent)
        }
        readiness?.workerRunning()
        logger.info(
            "worker started",
            metadata: [
                "queues": "\(configuration.queues.joined(separator: ","))", "concurrency": "\(configuration.concurrency)",
                "version": "\(registration.version)",
            ])
        warnIfLeaseTight()

        // Started before the loops, as LISTEN was: nothing announced from here on is missed.
        let wakeups = configuration.pollOnly ? nil : store.wakeups(logger: logger)

        await withTaskGroup(of: Void.self) { group in
            if let wakeups { group.addTask { await self.forward(wakeups) } }
            if !configuration.tracing { self.batcher.handOverFreedSlots(self.claimHandover()) }
            group.addTask { await self.batcher.run() }
            if let progressBatcher = self.progressBatcher { group.addTask { await progressBatcher.run() } }
            group.addTask { await self.heartbeatLoop(registration) }
            group.addTask { await self.rescueLoop() }
            group.addTask { await self.cancelWatchLoop() }
            if configuration.readsQueueDepth { group.addTask { await self.queueDepthLoop() } }
            group.addTask { await self.liveProgressLoop() }

            await withGracefulShutdownHandler {
                await self.claimLoop()
            } onGracefulShutdown: {
                self.readiness?.workerStopping()
                self.wakeup.notify()
            }
            await self.drain()
            self.batcher.finish()
            // Wait for the batcher to write every outcome; the other loops end by cancellation.
            while self.batcher.pending > 0 { try? await Task.sleep(for: .milliseconds(5)) }
            group.cancelAll()
        }
        do {
            try await liveness.deregister(worker: configuration.name)
        } catch {
            logger.warning("could not deregister; the row expires by itself", metadata: ["error": "\(error)"])
        }
        logger.info("worker stopped")
    }

    /// Claims while there are free slots; sleeps until work is announced, a slot frees, or the poll interval.
    func claimLoop() async {
        // Draining: the outcome batcher's hand-over stops claiming too.
        defer { claimGate.close() }
        var backoff = Duration.milliseconds(100)
        var lastClaimWasFull = false
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            var free = configuration.concurrency - running.count
            metrics.slotsBusy(running.count)
            if free <= 0 || !holdsLease {
                // Without a lease (no heartbeat got through lately) a claim would be rescued from under this worker.
                await wakeup.wait(timeout: idleWait())
                continue
            }
            if !writes.accepting {
                // A claim is a write: the heartbeat loop finds out when the server takes writes again, and wakes us.
                await wakeup.wait(timeout: pollInterval)
                continue
            }
            if free < configuration.concurrency / 2 && lastClaimWasFull {
                // Busy: let half the slots free up (for at most 2 ms) so one claim statement takes a batch, not
                // the one job whose finish woke us: a claim has a fixed cost whatever its size.
                let deadline = ContinuousClock.now + .milliseconds(2)
                while configuration.concurrency - running.count < configuration.concurrency / 2
                    && ContinuousClock.now < deadline && !Task.isShuttingDownGracefully
                {
                    await wakeup.wait(timeout: deadline - ContinuousClock.now)
                }
            }
            // The outcome batcher may be claiming with outcomes that freed account slots: it wakes us when done.
            guard claimGate.begin() else {
                await wakeup.wait(timeout: idleWait())
                continue
            }
            let claimed: [ClaimedJob]
            free = configuration.concurrency - running.count
            // Before the claim: a claim made while this worker was being declared dead belongs to the old generation.
            let generation = lease.generation
            do {
                claimed = try await store.claim(worker: configuration.name, queues: configuration.queues, limit: free)
                lastClaimWasFull = claimed.count == free
                backoff = .milliseconds(100)
                writes.accepted()
            } catch let error where writes.refused(error) {
                claimGate.end()
                continue
            } catch {
                claimGate.end()
                lastClaimFailure.withLock { $0 = ContinuousClock.now }
                logger.warning("claiming failed; retrying", metadata: ["error": "\(error)", "retry_in": "\(backoff)"])
                await wakeup.wait(timeout: backoff)
                backoff = min(backoff * 2, .seconds(5))
                continue
            }
            // With tracing on: what the event log knows of each job's trace, one statement for the whole claim, read
            // beside the claim loop (the jobs hold their slots meanwhile) so claiming never waits for it.
            var traceFacts: Task<[UUID: JobTraceFacts], Never>?
            if configuration.tracing && !claimed.isEmpty {
                traceFacts = Task { [store, logger] in
                    do {
                        return try await store.traceFacts(for: claimed)
                    } catch {
                        logger.debug("reading trace facts failed; this claim's spans use the traces derived from the job ids", metadata: ["error": "\(error)"])
                        return [:]
                    }
                }
            }
            for job in claimed { start(job, generation: generation, traceFacts: traceFacts) }
            claimGate.end()
            if claimed.count < free {
                await wakeup.wait(timeout: idleWait())
            }
        }
    }

    /// Runs one claimed job in its own task.
    func start(_ job: ClaimedJob, generation: Int, traceFacts: Task<[UUID: JobTraceFacts], Never>? = nil) {
        let now = ContinuousClock.now
        if let freed = freedSlots.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { metrics.slotWait(now - freed) }
        running.add(job)
        live.begin(job)
        metrics.claimed(job)
        metrics.startLatency(job)
        let tracing = configuration.tracing
        let task = Task {
            if tracing {
                await self.executeTraced(job, facts: await traceFacts?.value[job.jobID], generation: generation)
            } else {
                await self.execute(job, generation: generation)
            }
            self.running.remove(job.jobID)
            self.live.end(job.jobID)
            let limit = self.configuration.concurrency
            self.freedSlots.withLock { if $0.count < limit { $0.append(ContinuousClock.now) } }
            // A job of an account keeps its account slot in the database until its outcome is written, and the
            // batcher wakes the claim loop then: a claim now would find the account still full (a statement for
            // nothing, and one the useful claim may wait behind). Other jobs free their slot here.
            if job.account == nil || !self.batcher.holds(job.jobID) { self.wakeup.notify() }
        }
        running.attach(task, to: job.jobID)
    }

    func execute(_ claimed: ClaimedJob, attemptSpanID: String? = nil, generation: Int) async {
        var logger = self.logger
        logger[metadataKey: "job"] = "\(claimed.jobID.uuidString.lowercased())"
        logger[metadataKey: "kind"] = "\(claimed.kind.rawValue)"
        logger[metadataKey: "attempt"] = "\(claimed.attempt)"
        logger[metadataKey: "queue"] = "\(claimed.queue)"
        let started = ContinuousClock.now
        var job = claimed
        if let registry = handlers.registry, Self.isUnresolved(claimed) {
            do {
                // Before the worker looks at anything (resolving an upload stats its source): a job from SQL may
                // name any path on this machine.
                try Self.checkLocalPaths(of: claimed, roots: configuration.localRoots)
                guard let settled = try await resolve(claimed, registry: registry, logger: logger) else {
                    logger.notice("claim lost while resolving; stopping without recording")
                    return
                }
                job = settled
            } catch let failure as JobFailure {
                submit(.failed(claimed, error: failure.description), claimed, started, "failed")
                logger.warning("job from SQL refused", metadata: ["error": "\(failure)"])
                return
            } catch {
                let context = JobContext(
                    job: claimed, logger: logger, store: store, metrics: metrics, progressInterval: configuration.progressInterval,
                    cancelledByRequest: { false })
                await finishFailed(claimed, .retryable("error", "\(error)"), context: context, started: started, logger: logger)
                return
            }
        }
        let context = JobContext(
            job: job, logger: logger, store: store, metrics: metrics, progressInterval: configuration.progressInterval,
            cancelledByRequest: { [running] in running.stopReason(of: claimed.jobID) == .cancelRequested },
            attemptSpanID: attemptSpanID, localRoots: configuration.localRoots, live: live, progressBatcher: progressBatcher,
            bandwidth: BandwidthBudget.make(process: bandwidth, account: job.account, accounts: accountBandwidth), transferEnded: { [wakeup] in wakeup.notify() },
            lease: (lease, generation), writes: writes)
        guard let handler = handlers.handler(for: job) else {
            logger.error("no handler for this job")
            submit(.failed(job, error: "no_handler: this worker has no handler for \(job.kind.rawValue) from \(Self.scheme(job.source)) to \(Self.scheme(job.destination))"), job, started, "failed")
            return
        }
        logger.debug("job started", metadata: ["handler": "\(handler.name)"])
        // Confined before anything is opened: a producer names paths on this machine, and only the roots are its.
        if handler.usesLocalFiles {
            do {
                try Self.checkLocalPaths(of: job, roots: configuration.localRoots)
            } catch {
                submit(.failed(job, error: error.description), job, started, "failed")
                logger.warning("job refused: a local path is outside this worker's roots", metadata: ["error": "\(error)"])
                return
            }
        }
        // The job's account counts this process's demand for its fleet budget while the job runs.
        if let account = job.account { accountShares.begin(account) }
        defer { if let account = job.account { accountShares.end(account) } }
        do {
            let result = try await handler.run(job, context: context)
            context.recordFinalBytes(result.bytes)
            shortages.forget(job.jobID)
            submit(.succeeded(job, bytes: result.bytes, result: result.details), job, started, "succeeded")
            // What moved where, in the forms logs may carry (no query strings or user info).
            logger.info("job succeeded", metadata: [
                "bytes": "\(result.bytes ?? 0)", "source": "\(DisplayURL.of(job.source))",
                "destination": "\(DisplayURL.of(job.destination))",
            ])
        } catch is LeaseLost {
            // Someone else owns the job now; writing anything would overwrite a newer attempt.
            Self.attemptSpan?.setStatus(SpanStatus(code: .error, message: "claim lost"))
            logger.notice("claim lost; stopping without recording")
        } catch let lapsed as LeaseLapsed {
            leaseLapsed(lapsed, job, logger: logger)
        } catch let failure as JobFailure where !(Task.isCancelled && running.stopReason(of: job.jobID) != nil) {
            await finishFailed(job, failure, context: context, started: started, logger: logger)
        } catch {
            if let reason = running.stopReason(of: job.jobID) ?? (context.cancelRequestedByProgress ? .cancelRequested : nil) {
                switch reason {
                case .cancelRequested:
                    await context.runEndCleanups()
                    submit(.cancelled(job), job, started, "cancelled")
                    logger.info("job cancelled on request")
                case .shutdown:
                    submit(.released(job, reason: "worker \(configuration.name) shut down"), job, started, "released")
                    logger.info("job released back to the queue (shutdown)")
                }
            } else if let shortage = ResourceShortage(of: error) {
                // A failed system call no handler explained: the machine's shortage, not the job's fault.
                await finishFailed(job, .shortage(shortage, "\(error)"), context: context, started: started, logger: logger)
            } else {
                await finishFailed(job, .retryable("error", "\(error)"), context: context, started: started, logger: logger)
            }
        }
    }

    func finishFailed(
        _ job: ClaimedJob, _ failure: JobFailure, context: JobContext, started: ContinuousClock.Instant, logger: Logger
    ) async {
        var failure = failure
        if failure.kind == .held, let account = failure.heldAccount, account != job.account {
            failure.kind = .rateLimited(until: Date().addingTimeInterval(60))
        }
        let outcome: String
        switch failure.kind {
        case .permanent: outcome = "failed"
        case .retryable: outcome = job.attempt >= job.maxAttempts ? "failed" : "retried"
        case .held: outcome = "held"
        case .rateLimited, .shortage: outcome = "deferred"
        }
        metrics.jobError(outcome, job, code: failure.code)
        if case .shortage(let resource) = failure.kind {
            metrics.shortage(resource, job)
        } else {
            shortages.forget(job.jobID)
        }
        switch failure.kind {
        case .permanent:
            await context.runEndCleanups()
            submit(.failed(job, error: failure.description), job, started, "failed")
            logger.warning("job failed (not retryable)", metadata: ["error": "\(failure)"])
        case .retryable where job.attempt >= job.maxAttempts:
            await context.runEndCleanups()
            submit(
                .failed(job, error: "\(failure.description) (attempts exhausted: \(job.attempt) of \(job.maxAttempts))"),
                job, started, "failed")
            logger.warning("job failed: attempts exhausted", metadata: ["error": "\(failure)"])
        case .retryable:
            let delay = configuration.retryPolicy.delay(afterAttempt: job.attempt)
            remember(dueIn: delay)
            submit(.retry(job, error: failure.description, at: Date().addingTimeInterval(delay)), job, started, "retried")
            logger.notice("job will be retried", metadata: ["error": "\(failure)", "delay_s": "\(String(format: "%.2f", delay))"])
        case .held:
            submit(.released(job, reason: failure.description), job, started, "held")
            logger.warning("job held until its account is usable again", metadata: ["error": "\(failure)"])
        case .rateLimited(let until):
            remember(dueIn: until.timeIntervalSinceNow)
            submit(.deferred(job, reason: failure.description, until: until), job, started, "deferred")
            // Not every deferral is a rate limit (a worker whose key is stale defers too): the code says which.
            logger.notice("job deferred", metadata: ["until": "\(until)", "code": "\(failure.code)", "error": "\(failure)"])
        case .shortage(let resource):
            let delay = shortages.next(job.jobID)
            remember(dueIn: delay)
            submit(.deferred(job, reason: failure.description, until: Date().addingTimeInterval(delay)), job, started, "deferred")
            logger.warning(
                "job deferred: \(resource.what) on this machine",
                metadata: ["code": "\(failure.code)", "delay_s": "\(String(format: "%.1f", delay))", "error": "\(failure)"])
        }
    }

    /// Notes that a job becomes due `seconds` from now (a little after, so the claim finds it due).
    func remember(dueIn seconds: Double) {
        let due = ContinuousClock.now + .milliseconds(Int(max(0, seconds) * 1000) + 20)
        nextDue.withLock { $0 = min($0 ?? due, due) }
    }

    /// How long the claim loop may sleep without news: the poll interval, or less when a job this worker put back
    /// becomes due sooner.
    func idleWait() -> Duration {
        let now = ContinuousClock.now
        return nextDue.withLock { next -> Duration in
            let pollInterval = self.pollInterval
            guard let due = next else { return pollInterval }
            if due <= now {
                next = nil
                return .zero
            }
            return min(pollInterval, due - now)
        }
    }

    func submit(_ outcome: JobOutcome, _ job: ClaimedJob, _ started: ContinuousClock.Instant, _ label: String) {
        Self.attemptSpan?.recordOutcome(outcome, label: label)
        batcher.submit(outcome)
        outcomesSinceFold.add(1, ordering: .relaxed)
        metrics.finished(label, job)
        metrics.providerOutcome(label, job)
        metrics.duration(job, ContinuousClock.now - started, outcome: label)
    }

    static func scheme(_ endpoint: String) -> String {
        if let colon = endpoint.firstIndex(of: ":"), !endpoint.hasPrefix("/") { return String(endpoint[..<colon]) }
        return "local path"
    }
}
