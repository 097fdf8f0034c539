import FerryStore
import Foundation
import Logging
import ServiceLifecycle

extension Worker {
    /// Hands the store's announcements to the loops they concern; polling stays as the fallback. Ends when the
    /// task is cancelled (which stops the store's listener).
    func forward(_ wakeups: AsyncStream<WorkerWakeup>) async {
        for await wakeup in wakeups {
            switch wakeup {
            case .jobs: self.wakeup.notify()
            case .cancel: cancelWakeup.notify()
            case .schedules: schedulesChanged?()
            case .missed:
                // Reconnected: anything announced meanwhile was lost, so look at all of it again.
                self.wakeup.notify()
                cancelWakeup.notify()
                schedulesChanged?()
            case .unheard:
                let first = unheard.withLock { unheard in
                    defer { unheard = true }
                    return !unheard
                }
                if first {
                    logger.warning(
                        "notifications do not reach this worker (a transaction-mode pooler such as PgBouncer in front of PostgreSQL?): polling every \(pollInterval) instead; start workers behind PgBouncer with --poll-only",
                        metadata: ["configured_poll_interval": "\(configuration.pollInterval)"])
                }
                self.wakeup.notify()
                cancelWakeup.notify()
            }
        }
    }

    /// How long to wait for news: the configured poll interval, shortened to `unheardPollInterval` once
    /// notifications turned out not to arrive.
    var pollInterval: Duration {
        unheard.withLock { $0 } ? min(configuration.pollInterval, Self.unheardPollInterval) : configuration.pollInterval
    }

    /// One write per worker per interval, on the liveness connection. A missing row means we were declared dead:
    /// register again (our old claims were rescued and their late events will be refused by lease). Each stored
    /// heartbeat renews the lease from the time it was sent; a failed one renews nothing (see ``WorkerLease``).
    /// While the database refuses writes it tries every second (at most), and so finds out first when they are
    /// accepted again.
    func heartbeatLoop(_ registration: WorkerRegistration) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: writes.accepting ? configuration.heartbeatInterval : min(configuration.heartbeatInterval, .seconds(1)))
            if Task.isCancelled { return }
            do {
                var sent = ContinuousClock.now
                let alive = try await liveness.heartbeat(worker: configuration.name, stopping: Task.isShuttingDownGracefully)
                writes.accepted()
                if !alive {
                    // Every claim made so far is someone else's now, whatever the time: fence their effects for good.
                    lease.revoke()
                    logger.warning("this worker was declared dead; registering again")
                    sent = ContinuousClock.now
                    try await liveness.register(registration)
                }
                noteLeaseRenewed(sentAt: sent)
            } catch let error where writes.refused(error) {
                continue
            } catch {
                logger.warning("heartbeat failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// How often the rescue loop runs: between a third and two thirds of `rescueAfter` (a dead worker's jobs wait at
    /// most that much longer than the staleness itself, less in a fleet, where the first of many looks), never more
    /// often than the heartbeat.
    var rescueInterval: Duration { max(configuration.heartbeatInterval, configuration.rescueAfter / 3) }

    /// The longest an idle worker goes without folding the counters or looking for orphaned claims: a safety net,
    /// since both have work only after this worker (or a dead one) wrote outcomes or lost a claim's reply.
    static let idleHousekeeping: Duration = .seconds(60)

    /// Any live worker rescues jobs of dead ones (the database makes it exactly once), releases its own claims whose
    /// reply was lost, and folds the counters. An idle worker only rescues: it folds when it wrote outcomes and
    /// looks for orphans after a failed claim (and both at least every ``idleHousekeeping``), so an idle fleet
    /// costs the database little.
    func rescueLoop() async {
        var lastFold = ContinuousClock.now
        var lastOrphanCheck = ContinuousClock.now
        let grace = max(configuration.heartbeatInterval * 3, .seconds(5))
        while !Task.isCancelled {
            // Jitter spreads the fleet's rescue queries.
            let jitter = Double.random(in: 1.0...2.0)
            try? await Task.sleep(for: rescueInterval * jitter)
            if Task.isCancelled { return }
            let now = ContinuousClock.now
            // Every housekeeping step writes; after a refusal, no worker's silence means death until all could write.
            guard writes.rescueAllowed(grace: configuration.rescueAfter) else { continue }
            if outcomesSinceFold.load(ordering: .relaxed) > 0 || now - lastFold >= Self.idleHousekeeping {
                do {
                    // Keeps ferry.queue_stats, batch_status and throughput cheap: pending counter deltas stay few
                    // (one worker at a time folds them).
                    outcomesSinceFold.store(0, ordering: .relaxed)
                    try await store.compactCounters()
                    lastFold = now
                } catch {
                    logger.warning("folding counters failed", metadata: ["error": "\(error)"])
                }
            }
            // A claim whose reply was lost is released once it is `grace` old: look until well past that.
            let claimTrouble = lastClaimFailure.withLock { $0 }.map { now - $0 < grace * 3 } ?? false
            // A worker with jobs in hand (running, or outcomes on their way) checks every time: the check must
            // count them as its own, which is where a slow database used to make it release a claim too early.
            let busy = running.count > 0 || !batcher.unwrittenJobIDs.isEmpty
            guard claimTrouble || busy || now - lastOrphanCheck >= Self.idleHousekeeping else {
                await rescueStale()
                continue
            }
            lastOrphanCheck = now
            do {
                // Claims whose reply was lost when the connection dropped after commit: this worker holds them in the
                // database but is not running them. On the job pool, not the heartbeat's connection: it appends events.
                // Running jobs first, then unwritten outcomes: a job moves from the first to the second, so
                // reading in this order never misses it between the two.
                let held = running.jobs.map(\.jobID)
                let orphans = try await store.releaseOrphanedClaims(
                    worker: configuration.name, running: held + batcher.unwrittenJobIDs,
                    grace: grace)
                if !orphans.isEmpty {
                    logger.notice("released claims whose reply was lost with the connection", metadata: ["jobs": "\(orphans.count)"])
                    wakeup.notify()
                }
            } catch {
                logger.warning("releasing orphaned claims failed", metadata: ["error": "\(error)"])
            }
            await rescueStale()
        }
    }

    /// Puts back (or fails, out of attempts) the jobs of workers whose heartbeat is older than `rescueAfter`.
    func rescueStale() async {
        do {
            let rescued = try await store.rescueStaleJobs(staleAfter: configuration.rescueAfter, poisonAfter: configuration.poisonAfter)
            if !rescued.isEmpty {
                metrics.rescued(rescued)
                for job in rescued where job.outcome == "poison" {
                    logger.error(
                        "job failed as poison: the workers that claimed it kept dying mid-job; it is no longer handed out (ferry retry it once the cause is fixed)",
                        metadata: ["job": "\(job.jobID.uuidString.lowercased())", "last_worker": "\(job.worker ?? "?")"])
                }
                let workers = Set(rescued.compactMap(\.worker)).sorted().joined(separator: ",")
                logger.notice("rescued jobs of dead workers", metadata: ["jobs": "\(rescued.count)", "dead_workers": "\(workers)"])
                wakeup.notify()
            }
        } catch {
            logger.warning("rescue check failed", metadata: ["error": "\(error)"])
        }
    }

    /// Publishes the bytes running transfers have moved beyond their durable progress, about once a second and
    /// only when they changed: one statement for all of this worker's jobs (rows of jobs no longer ahead go).
    func liveProgressLoop() async {
        var published = [UUID: LiveProgress.Entry]()
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            if Task.isCancelled { return }
            metrics.bytesInFlight(live.remaining())
            let ahead = live.ahead()
            guard ahead != published else { continue }
            do {
                try await store.publishLiveProgress(
                    worker: configuration.name, jobs: ahead.map { (jobID: $0.key, batch: $0.value.batch, bytes: $0.value.bytes) })
                published = ahead
            } catch {
                logger.debug("publishing live progress failed; the views show durable progress meanwhile", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Stops running jobs someone asked to cancel: at once on notification, else within the poll interval.
    func cancelWatchLoop() async {
        while !Task.isCancelled {
            await cancelWakeup.wait(timeout: pollInterval)
            if Task.isCancelled { return }
            guard running.count > 0 else { continue }
            do {
                let requested = try await store.cancelRequests(worker: configuration.name)
                if !requested.isEmpty {
                    let stopped = running.stop(requested, reason: .cancelRequested)
                    if stopped > 0 { logger.info("cancelling running jobs on request", metadata: ["jobs": "\(stopped)"]) }
                }
            } catch {
                logger.warning("checking cancel requests failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Queue depth and oldest waiting age for metrics, read at a modest interval. Every worker reads it: the read
    /// is a few counter rows and index probes (about 1.5 ms and 200 buffers at 1,000,000 queued jobs), so a
    /// fleet-wide reader elected by lock would save little and add a hand-over gap. Failures keep the last values;
    /// `ferry_queue_depth_read_timestamp_seconds` shows how old they are.
    func queueDepthLoop() async {
        while !Task.isCancelled {
            do {
                let depth = try await store.queueDepth(including: configuration.queues)
                metrics.queueDepth(depth, paused: try await store.pausedQueues())
                metrics.accountLoad(try await store.accountLoad())
            } catch {
                logger.debug("reading queue depth failed", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: configuration.queueStatsInterval)
        }
    }

    /// Graceful shutdown: running jobs get `shutdownTimeout` to finish; the rest are stopped and released.
    func drain() async {
        let deadline = ContinuousClock.now + configuration.shutdownTimeout
        if running.count > 0 {
            logger.info("draining running jobs", metadata: ["jobs": "\(running.count)", "timeout": "\(configuration.shutdownTimeout)"])
        }
        while running.count > 0 && ContinuousClock.now < deadline {
            await wakeup.wait(timeout: .milliseconds(100))
        }
        if running.count > 0 {
            let stopped = running.stop(nil, reason: .shutdown)
            logger.notice("shutdown timeout reached; releasing jobs back to the queue", metadata: ["jobs": "\(stopped)"])
            while running.count > 0 { await wakeup.wait(timeout: .milliseconds(50)) }
        }
    }
}
