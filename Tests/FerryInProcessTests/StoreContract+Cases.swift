import FerryCore
import FerryStore
import FerryTesting
import Foundation
import Testing

extension StoreContract {
    /// Every rule, in the order the worker meets them.
    static let all: [StoreContract] = [
        StoreContract(name: "claims due jobs by priority, then run_at, then id; later jobs wait", check: claimOrder),
        StoreContract(name: "a paused queue's jobs are not claimed", check: pausedQueues),
        StoreContract(name: "an account's cap counts transfers; a job with every byte up frees its slot", check: accountCaps),
        StoreContract(name: "an outcome under a stale lease is refused; the current claim's is accepted", check: leaseFencing),
        StoreContract(
            name: "outcomes recorded with a claim: the slot a finish freed goes to the next job in the same call; a stale outcome is refused",
            check: recordThenClaim),
        StoreContract(name: "a retry counts the attempt and waits for its run_at; a deferral does not count", check: retries),
        StoreContract(name: "cancel ends a queued job at once; a running one is reported until its worker records cancelled", check: cancels),
        StoreContract(name: "rescue puts back jobs of a worker that stopped heartbeating, or fails them with attempts exhausted", check: rescue),
        StoreContract(
            name: "a job whose claimers die at the poison limit fails as poison and is not handed out; other jobs flow", check: poison),
        StoreContract(name: "claims a worker holds but does not run are released without using the attempt", check: orphanedClaims),
        StoreContract(name: "fan-out enqueues keyed children once, in the parent's batch, queue and priority; a lost claim enqueues nothing", check: fanOut),
        StoreContract(name: "progress is accepted under the current claim and refused after it ended; a batch answers every job", check: progress),
        StoreContract(name: "a heartbeat says whether the worker is still registered", check: liveness),
        StoreContract(name: "wake-ups announce enqueued work and cancel requests", check: wakeups),
        StoreContract(
            name: "a remote folder is claimed by one worker at a time, its first recorded id stands, a stale claim is taken over",
            check: remoteFolders),
        StoreContract(name: "a batch's siblings: unfinished and unsuccessful jobs, the asking job left out", check: batchSiblings),
        StoreContract(
            name: "an account's limits are shared by demand among live leases; a lapsed lease's share goes to the others",
            check: accountShares),
        StoreContract(name: "account load: transfers against the cap, and whether the account needs a login", check: accountLoad),
    ] + views

    static func accountLoad(_ fixture: any StoreFixture) async throws {
        try await fixture.addAccount("photos", maxConcurrent: 2)
        try await fixture.enqueue([JobSpec.test(account: "photos"), JobSpec.test(account: "photos"), JobSpec.test(account: "photos")])
        #expect(try await fixture.store.accountLoad() == [
            AccountLoadRow(account: "photos", provider: "dropbox", transfers: 0, maxConcurrent: 2, needsLogin: false)
        ])
        _ = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 10)
        #expect(try await fixture.store.accountLoad().first?.transfers == 2, "the cap allowed two")
    }

    static func accountShares(_ fixture: any StoreFixture) async throws {
        let store = fixture.store
        let lease = Duration.seconds(30)
        try await fixture.addAccount("free", maxConcurrent: 4)
        try await fixture.addAccount("capped", maxConcurrent: 4)
        try await fixture.setAccountLimits("capped", requestsPerSecond: 20, bytesPerSecond: 4_000_000)
        // No limits: nothing leased, the whole (absent) limit.
        let free = try await store.leaseAccountShare("free", worker: "w1", demand: 3, lease: lease)
        #expect(free == AccountShareLease(requestsPerSecond: nil, bytesPerSecond: nil, fraction: 1, holders: 0))
        #expect(try await store.leaseAccountShare("none", worker: "w1", demand: 3, lease: lease).fraction == 1)

        var first = try await store.leaseAccountShare("capped", worker: "w1", demand: 3, lease: lease)
        #expect(first == AccountShareLease(requestsPerSecond: 20, bytesPerSecond: 4_000_000, fraction: 1, holders: 1))
        // A second process with a third of the demand: a quarter; the first learns its three quarters on renewal.
        let second = try await store.leaseAccountShare("capped", worker: "w2", demand: 1, lease: lease)
        #expect(second.fraction == 0.25 && second.holders == 2 && second.processRequestsPerSecond == 5)
        first = try await store.leaseAccountShare("capped", worker: "w1", demand: 3, lease: lease)
        #expect(first.fraction == 0.75 && first.holders == 2 && first.processBytesPerSecond == 3_000_000)
        // A demand of 0 or a hostile one counts as 1 and at most a million: no division by zero, no overflow.
        let zero = try await store.leaseAccountShare("capped", worker: "w2", demand: 0, lease: lease)
        #expect(zero.fraction == 0.25)
        let huge = try await store.leaseAccountShare("capped", worker: "w2", demand: .greatestFiniteMagnitude, lease: lease)
        #expect(huge.fraction > 0.99 && huge.fraction < 1)
        // The second process stops renewing: once its lease lapses, the first has the whole budget again.
        try await fixture.expireAccountShares(of: "w2")
        first = try await store.leaseAccountShare("capped", worker: "w1", demand: 3, lease: lease)
        #expect(first.fraction == 1 && first.holders == 1)
        // Limits removed: the leases go with them.
        try await fixture.setAccountLimits("capped", requestsPerSecond: nil, bytesPerSecond: nil)
        #expect(try await store.leaseAccountShare("capped", worker: "w1", demand: 3, lease: lease).holders == 0)
    }

    static func batchSiblings(_ fixture: any StoreFixture) async throws {
        let (waiter, done, broken, pending) = (
            JobSpec.test(batch: "run"), JobSpec.test(batch: "run"), JobSpec.test(batch: "run"), JobSpec.test(batch: "run"))
        try await fixture.enqueue([waiter, done, broken, pending, JobSpec.test(batch: "other")])
        var siblings = try await fixture.store.batchSiblings(of: waiter.jobID, batch: "run")
        #expect(siblings == BatchSiblings(unfinished: 3, unsuccessful: 0))
        let claimed = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 10)
        let byID = Dictionary(uniqueKeysWithValues: claimed.map { ($0.jobID, $0) })
        _ = try await fixture.store.record([
            .succeeded(try #require(byID[done.jobID]), bytes: 1), .failed(try #require(byID[broken.jobID]), error: "no"),
        ])
        siblings = try await fixture.store.batchSiblings(of: waiter.jobID, batch: "run")
        #expect(siblings == BatchSiblings(unfinished: 1, unsuccessful: 1), "the waiter, running, is not its own sibling")
        #expect(try await fixture.store.batchSiblings(of: waiter.jobID, batch: "none") == BatchSiblings(unfinished: 0, unsuccessful: 0))
    }

    static func remoteFolders(_ fixture: any StoreFixture) async throws {
        let store = fixture.store
        let hour = Duration.seconds(3600)
        #expect(try await store.claimRemoteFolder(scope: "p:a", path: "/A/", owner: "w1", staleAfter: hour) == .claimed)
        #expect(try await store.claimRemoteFolder(scope: "p:a", path: "/A/", owner: "w2", staleAfter: hour) == .busy)
        // The holder asking again (its next attempt) still holds it.
        #expect(try await store.claimRemoteFolder(scope: "p:a", path: "/A/", owner: "w1", staleAfter: hour) == .claimed)
        #expect(try await store.recordRemoteFolder(scope: "p:a", path: "/A/", id: "id-1") == "id-1")
        #expect(try await store.claimRemoteFolder(scope: "p:a", path: "/A/", owner: "w2", staleAfter: hour) == .known("id-1"))
        #expect(try await store.recordRemoteFolder(scope: "p:a", path: "/A/", id: "id-2") == "id-1")
        // Another account's space is its own, and a claim whose holder went quiet is taken over.
        #expect(try await store.claimRemoteFolder(scope: "p:b", path: "/A/", owner: "w2", staleAfter: hour) == .claimed)
        #expect(try await store.claimRemoteFolder(scope: "p:b", path: "/A/", owner: "w3", staleAfter: .zero) == .claimed)
        #expect(try await store.claimRemoteFolder(scope: "p:b", path: "/A/", owner: "w2", staleAfter: hour) == .busy)
        // Forgetting takes the recorded id only.
        try await store.forgetRemoteFolder(scope: "p:a", path: "/A/", id: "id-2")
        #expect(try await store.claimRemoteFolder(scope: "p:a", path: "/A/", owner: "w2", staleAfter: hour) == .known("id-1"))
        try await store.forgetRemoteFolder(scope: "p:a", path: "/A/", id: "id-1")
        #expect(try await store.claimRemoteFolder(scope: "p:a", path: "/A/", owner: "w2", staleAfter: hour) == .claimed)
        #expect(try await store.recordRemoteFolder(scope: "p:c", path: "/none/", id: "x") == nil)
    }

    static func claimOrder(_ fixture: any StoreFixture) async throws {
        let now = Date()
        let low = JobSpec.test(priority: 0, runAt: now.addingTimeInterval(-30))
        let older = JobSpec.test(priority: 5, runAt: now.addingTimeInterval(-20))
        let newer = JobSpec.test(priority: 5, runAt: now.addingTimeInterval(-10))
        let later = JobSpec.test(priority: 9, runAt: now.addingTimeInterval(3600))
        let other = JobSpec.test(queue: "other", priority: 9)
        try await fixture.enqueue([low, newer, older, later, other])
        let claimed = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 10)
        #expect(claimed.map(\.jobID) == [older.jobID, newer.jobID, low.jobID])
        #expect(claimed.allSatisfy { $0.attempt == 1 && $0.lease == 1 })
        let first = try await fixture.snapshot(older.jobID)
        #expect(first.state == .running && first.worker == "w1")
        #expect(try await fixture.snapshot(later.jobID).state == .queued)
        #expect(try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 10).isEmpty)
        #expect(try await fixture.store.claim(worker: "w1", queues: ["default", "other"], limit: 1).map(\.jobID) == [other.jobID])
    }

    static func pausedQueues(_ fixture: any StoreFixture) async throws {
        let spec = JobSpec.test(queue: "held")
        try await fixture.enqueue([spec])
        try await fixture.pauseQueue("held")
        #expect(try await fixture.store.claim(worker: "w1", queues: ["held"], limit: 5).isEmpty)
    }

    static func accountCaps(_ fixture: any StoreFixture) async throws {
        try await fixture.addAccount("capped", maxConcurrent: 2)
        let specs = (0..<4).map { _ in JobSpec.test(account: "capped", bytesTotal: 100) }
        let free = JobSpec.test()
        try await fixture.enqueue(specs + [free])
        let first = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 10)
        #expect(first.count == 3)
        #expect(first.filter { $0.account == "capped" }.count == 2)
        #expect(first.contains { $0.jobID == free.jobID })
        #expect(try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 10).isEmpty)
        // Every byte up: only the commit is left, and the job stops counting.
        let uploaded = first.first { $0.account == "capped" }!
        let ack = try await fixture.store.recordProgress(.progress(uploaded, bytesDone: 100, bytesTotal: 100))
        #expect(ack.accepted)
        #expect(try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 10).count == 1)
        // A finish frees a slot too.
        let other = first.first { $0.account == "capped" && $0.jobID != uploaded.jobID }!
        #expect(try await fixture.store.record([.succeeded(other)]).accepted == [other.jobID])
        #expect(try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 10).count == 1)
    }

    static func recordThenClaim(_ fixture: any StoreFixture) async throws {
        try await fixture.addAccount("one", maxConcurrent: 1)
        let specs = (0..<3).map { _ in JobSpec.test(account: "one") }
        try await fixture.enqueue(specs)
        let first = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 4)
        #expect(first.count == 1, "the cap lets one run")
        var stale = first[0]
        stale.lease += 1
        // The stale outcome frees nothing: the account is still full, so nothing is claimed with it.
        let refused = try await fixture.store.recordThenClaim([.succeeded(stale)], worker: "w1", queues: ["default"], limit: 4)
        #expect(refused.rejected == [first[0].jobID] && refused.accepted.isEmpty && refused.claimed.isEmpty)
        let handed = try await fixture.store.recordThenClaim([.succeeded(first[0])], worker: "w1", queues: ["default"], limit: 4)
        #expect(handed.accepted == [first[0].jobID] && handed.rejected.isEmpty)
        #expect(handed.claimed.count == 1 && handed.claimed[0].account == "one" && handed.claimed[0].jobID != first[0].jobID)
        #expect(try await fixture.snapshot(first[0].jobID).state == .succeeded)
        #expect(try await fixture.snapshot(handed.claimed[0].jobID).state == .running)
        // Nothing to claim: the outcome still lands.
        let none = try await fixture.store.recordThenClaim([.succeeded(handed.claimed[0])], worker: "w1", queues: ["paused-nowhere"], limit: 0)
        #expect(none.accepted == [handed.claimed[0].jobID] && none.claimed.isEmpty)
    }

    static func leaseFencing(_ fixture: any StoreFixture) async throws {
        let spec = JobSpec.test()
        try await fixture.enqueue([spec])
        try await fixture.store.register(registration("w1"))
        let stale = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 1)[0]
        try await fixture.stopHeartbeats(of: "w1")
        #expect(try await fixture.store.rescueStaleJobs(staleAfter: .seconds(900), poisonAfter: 3).map(\.jobID) == [spec.jobID])
        let current = try await fixture.store.claim(worker: "w2", queues: ["default"], limit: 1)[0]
        #expect(current.lease == stale.lease + 1 && current.attempt == 2)
        let zombie = try await fixture.store.record([.succeeded(stale)])
        #expect(zombie.accepted.isEmpty && zombie.rejected == [spec.jobID])
        #expect(try await fixture.store.recordProgress(.progress(stale, bytesDone: 5)).accepted == false)
        #expect(try await fixture.snapshot(spec.jobID).state == .running)
        #expect(try await fixture.store.record([.succeeded(current)]).accepted == [spec.jobID])
        #expect(try await fixture.snapshot(spec.jobID).state == .succeeded)
        // A finished job refuses even its last holder.
        #expect(try await fixture.store.record([.failed(current, error: "late")]).rejected == [spec.jobID])
    }

    static func retries(_ fixture: any StoreFixture) async throws {
        let spec = JobSpec.test()
        try await fixture.enqueue([spec])
        let first = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 1)[0]
        let later = Date().addingTimeInterval(3600)
        #expect(try await fixture.store.record([.retry(first, error: "boom", at: later)]).accepted == [spec.jobID])
        let waiting = try await fixture.snapshot(spec.jobID)
        #expect(waiting.state == .queued && waiting.attempt == 1 && waiting.worker == nil)
        // The delay asked for, counted on the store's clock from the write (PostgreSQL rebases it onto its `now()`,
        // which is later than the worker's reading by the write's own latency, never earlier).
        #expect(waiting.runAt.timeIntervalSince(later) > -0.01 && waiting.runAt.timeIntervalSince(later) < 60)
        #expect(try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 1).isEmpty)

        let due = JobSpec.test()
        try await fixture.enqueue([due])
        let claim = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 1)[0]
        _ = try await fixture.store.record([.retry(claim, error: "boom", at: Date().addingTimeInterval(-1))])
        let second = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 1)
        #expect(second.map(\.attempt) == [2])
        _ = try await fixture.store.record([.deferred(second[0], reason: "429", until: Date().addingTimeInterval(-1))])
        #expect(try await fixture.snapshot(due.jobID).attempt == 1)
        let third = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 1)
        #expect(third.map(\.attempt) == [2])
        #expect(third.map(\.lease) == [3])
    }

    static func cancels(_ fixture: any StoreFixture) async throws {
        let queued = JobSpec.test(priority: 0)
        let running = JobSpec.test(priority: 1)
        try await fixture.enqueue([queued, running])
        let claim = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 1)[0]
        #expect(claim.jobID == running.jobID)
        try await fixture.cancel(queued.jobID)
        #expect(try await fixture.snapshot(queued.jobID).state == .cancelled)
        #expect(try await fixture.store.cancelRequests(worker: "w1").isEmpty)
        try await fixture.cancel(running.jobID)
        #expect(try await fixture.snapshot(running.jobID).cancelRequested)
        #expect(try await fixture.store.cancelRequests(worker: "w1") == [running.jobID])
        #expect(try await fixture.store.cancelRequests(worker: "w2").isEmpty)
        let ack = try await fixture.store.recordProgress(.progress(claim, bytesDone: 10))
        #expect(ack == ProgressAck(accepted: true, cancelRequested: true))
        #expect(try await fixture.store.record([.cancelled(claim)]).accepted == [running.jobID])
        #expect(try await fixture.snapshot(running.jobID).state == .cancelled)
        #expect(try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 5).isEmpty)

        // A cancel requested while running wins when the job would go back to the queue.
        let retried = JobSpec.test()
        try await fixture.enqueue([retried])
        let retryClaim = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 1)[0]
        try await fixture.cancel(retried.jobID)
        _ = try await fixture.store.record([.retry(retryClaim, error: "boom", at: Date())])
        #expect(try await fixture.snapshot(retried.jobID).state == .cancelled)
    }

    static func rescue(_ fixture: any StoreFixture) async throws {
        let spec = JobSpec.test(maxAttempts: 3)
        let last = JobSpec.test(maxAttempts: 1)
        try await fixture.enqueue([spec, last])
        try await fixture.store.register(registration("w1"))
        try await fixture.store.register(registration("w2"))
        _ = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 5)
        // A live worker's jobs stay (a window far beyond any stall of a loaded machine; the stopped one is an hour old).
        #expect(try await fixture.store.rescueStaleJobs(staleAfter: .seconds(900), poisonAfter: 3).isEmpty)
        try await fixture.stopHeartbeats(of: "w1")
        let rescued = try await fixture.store.rescueStaleJobs(staleAfter: .seconds(900), poisonAfter: 3)
        #expect(Set(rescued.map(\.jobID)) == [spec.jobID, last.jobID])
        #expect(rescued.first { $0.jobID == spec.jobID }?.outcome == "rescued")
        #expect(rescued.first { $0.jobID == last.jobID }?.outcome == "failed")
        #expect(rescued.allSatisfy { $0.worker == "w1" && $0.queue == "default" && $0.kind == .fetch })
        let back = try await fixture.snapshot(spec.jobID)
        #expect(back.state == .queued && back.attempt == 1 && back.worker == nil)
        #expect(try await fixture.snapshot(last.jobID).state == .failed)
        // Exactly once.
        #expect(try await fixture.store.rescueStaleJobs(staleAfter: .seconds(900), poisonAfter: 3).isEmpty)
        #expect(try await fixture.store.claim(worker: "w2", queues: ["default"], limit: 5).map(\.attempt) == [2])
    }

    static func poison(_ fixture: any StoreFixture) async throws {
        let deadly = JobSpec.test(priority: 9, maxAttempts: 10)
        let innocent = JobSpec.test(priority: 0, maxAttempts: 10)
        try await fixture.enqueue([deadly, innocent])
        // Three claimers die holding it (it sorts first, so each new worker takes it).
        for round in 1...3 {
            let worker = "dies-\(round)"
            try await fixture.store.register(registration(worker))
            #expect(try await fixture.store.claim(worker: worker, queues: ["default"], limit: 1).map(\.jobID) == [deadly.jobID])
            try await fixture.stopHeartbeats(of: worker)
            let rescued = try await fixture.store.rescueStaleJobs(staleAfter: .seconds(900), poisonAfter: 3)
            #expect(rescued.map(\.outcome) == [round < 3 ? "rescued" : "poison"])
        }
        let ended = try await fixture.snapshot(deadly.jobID)
        #expect(ended.state == .failed && ended.attempt == 3)
        #expect(ended.lastError?.hasPrefix("poison:") == true)
        // Not handed out again; the others still are.
        try await fixture.store.register(registration("alive"))
        #expect(try await fixture.store.claim(worker: "alive", queues: ["default"], limit: 5).map(\.jobID) == [innocent.jobID])
        // 0 turns it off: a fourth rescue of another job is only a rescue.
        try await fixture.stopHeartbeats(of: "alive")
        #expect(try await fixture.store.rescueStaleJobs(staleAfter: .seconds(900), poisonAfter: 0).map(\.outcome) == ["rescued"])
    }

    static func orphanedClaims(_ fixture: any StoreFixture) async throws {
        let kept = JobSpec.test(priority: 1)
        let lost = JobSpec.test(priority: 0)
        try await fixture.enqueue([kept, lost])
        let claimed = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 5)
        #expect(claimed.count == 2)
        // Time is the subject: the claims must be older than the 1 ms grace, on PostgreSQL's clock too.
        try await Task.sleep(for: .milliseconds(20))
        #expect(try await fixture.store.releaseOrphanedClaims(worker: "w1", running: [kept.jobID], grace: .seconds(3600)).isEmpty)
        #expect(try await fixture.store.releaseOrphanedClaims(worker: "w1", running: [kept.jobID], grace: .milliseconds(1)) == [lost.jobID])
        let released = try await fixture.snapshot(lost.jobID)
        #expect(released.state == .queued && released.attempt == 0)
        #expect(try await fixture.snapshot(kept.jobID).state == .running)
    }

    static func fanOut(_ fixture: any StoreFixture) async throws {
        let batch = "b-\(UInt32.random(in: 0...UInt32.max))"
        let parentSpec = JobSpec.test(queue: "lists", batch: batch, priority: 7)
        try await fixture.enqueue([parentSpec])
        let parent = try await fixture.store.claim(worker: "w1", queues: ["lists"], limit: 1)[0]
        let children = (0..<3).map { index in
            FanOutChild(
                source: "https://example.com/\(batch)/\(index)", destination: "/srv/in/\(index)", account: nil,
                idempotencyKey: "\(batch)-child-\(index)", bytesTotal: 10)
        }
        let cursor = JSONValue.object(["page": .int(1)])
        let ack = try await fixture.store.fanOut(
            children, from: parent, progress: .progress(parent, bytesDone: 3, session: cursor), now: Date())
        #expect(ack == FanOutAck(accepted: true, cancelRequested: false, created: 3))
        let again = try await fixture.store.fanOut(
            children, from: parent, progress: .progress(parent, bytesDone: 3, session: cursor), now: Date())
        #expect(again.created == 0)
        let members = try await fixture.batch(batch).filter { $0 != parentSpec.jobID }
        #expect(members.count == 3)
        for member in members {
            let child = try await fixture.snapshot(member)
            #expect(child.queue == "lists" && child.priority == 7 && child.state == .queued)
        }
        #expect(try await fixture.snapshot(parentSpec.jobID).bytesDone == 3)
        // The children are claimable while the parent still runs (the batch stays open).
        #expect(try await fixture.store.claim(worker: "w2", queues: ["lists"], limit: 10).count == 3)

        var stale = parent
        stale.lease += 1
        let refused = try await fixture.store.fanOut(
            [FanOutChild(source: "https://example.com/x", destination: "/srv/in/x", account: nil, idempotencyKey: "\(batch)-x")],
            from: stale, progress: .progress(stale, bytesDone: 4), now: Date())
        #expect(refused == FanOutAck(accepted: false, cancelRequested: false, created: 0))
        #expect(try await fixture.batch(batch).count == 4)
    }

    static func progress(_ fixture: any StoreFixture) async throws {
        let one = JobSpec.test(priority: 1)
        let two = JobSpec.test(priority: 0)
        try await fixture.enqueue([one, two])
        let claims = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 2)
        let acks = try await fixture.store.recordProgress(claims.map { .progress($0, bytesDone: 7) })
        #expect(acks.count == 2 && acks.values.allSatisfy { $0 == ProgressAck(accepted: true, cancelRequested: false) })
        #expect(try await fixture.snapshot(one.jobID).bytesDone == 7)
        _ = try await fixture.store.record([.succeeded(claims[0])])
        let after = try await fixture.store.recordProgress(claims.map { .progress($0, bytesDone: 9) })
        #expect(after[claims[0].jobID] == ProgressAck(accepted: false, cancelRequested: false))
        #expect(after[claims[1].jobID]?.accepted == true)
    }

    static func liveness(_ fixture: any StoreFixture) async throws {
        #expect(try await fixture.store.heartbeat(worker: "w9", stopping: false) == false)
        try await fixture.store.register(registration("w9"))
        #expect(try await fixture.store.heartbeat(worker: "w9", stopping: false))
        try await fixture.store.deregister(worker: "w9")
        #expect(try await fixture.store.heartbeat(worker: "w9", stopping: true) == false)
    }

    static func wakeups(_ fixture: any StoreFixture) async throws {
        let recorder = WakeupRecorder(fixture.store)
        defer { recorder.stop() }
        // PostgreSQL's listener connects in the background: enqueue until it hears one.
        var heard = false
        for _ in 0..<50 where !heard {
            try await fixture.enqueue([JobSpec.test()])
            heard = await recorder.saw(.jobs, within: .milliseconds(100))
        }
        #expect(heard)
        try await fixture.enqueue([JobSpec.test()])
        let claims = try await fixture.store.claim(worker: "w1", queues: ["default"], limit: 2)
        try #require(claims.count == 2)
        try await fixture.cancel(claims[0].jobID)
        #expect(await recorder.saw(.cancel, within: .seconds(5)))
        recorder.reset()
        _ = try await fixture.store.record([.retry(claims[1], error: "boom", at: Date())])
        #expect(await recorder.saw(.jobs, within: .seconds(5)))
    }

    static func registration(_ name: String) -> WorkerRegistration {
        WorkerRegistration(name: name, queues: ["default"], concurrency: 4, host: "test", pid: 1)
    }
}
