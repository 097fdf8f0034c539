import FerryCore
import Foundation
import Postgres

extension ChaosRun {
    /// Runs the schedule: waves of jobs, kill -9s, restarts and the zombie, for `duration` seconds.
    func chaos() async throws {
        chaosStarted = Date()
        say("chaos for \(ChaosSettings.number(settings.duration)) s: \(schedule.actions.count { if case .kill = $0.kind { true } else { false } }) kill -9, "
            + "\(settings.pgRestarts) PostgreSQL restarts, \(settings.devServerRestarts) dev server restarts\(settings.zombie ? ", a zombie" : "")")
        var victims = SeededGenerator.stream(settings.seed, "victims")
        var background: [Task<Void, Never>] = []
        let dev = self.dev!
        let poller = Task {
            while !Task.isCancelled {
                await dev.pollStats()
                try? await Task.sleep(for: .seconds(2))
            }
        }
        for action in schedule.actions {
            let wait = action.at - Date().timeIntervalSince(chaosStarted)
            if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
            switch action.kind {
            case .enqueue(let wave):
                background.append(Task { await self.enqueue(wave: wave) })
            case .kill(let delay, let newName):
                let candidates = await fleet.killable()
                guard !candidates.isEmpty else {
                    say("kill -9 skipped: no worker may be killed right now")
                    continue
                }
                let index = candidates[Int.random(in: 0..<candidates.count, using: &victims)]
                background.append(Task { await self.killAndRestart(index, delay: delay, newName: newName) })
            case .restartPostgres:
                background.append(Task { await self.restartPostgres() })
            case .restartDevServer:
                background.append(Task { await self.restartDevServer() })
            case .zombie:
                background.append(Task { await self.makeZombie() })
            case .partitionDatabase:
                background.append(Task { await self.partitionDatabase() })
            case .partitionProvider:
                background.append(Task { await self.partitionProvider() })
            case .fillDisk:
                background.append(Task { await self.fillDisk() })
            }
        }
        let left = settings.duration - Date().timeIntervalSince(chaosStarted)
        if left > 0 { try await Task.sleep(for: .milliseconds(Int(left * 1000))) }
        for task in background { await task.value }
        poller.cancel()
        guard actionErrors.isEmpty else { throw ChaosError(actionErrors.joined(separator: "; ")) }
    }

    func killAndRestart(_ index: Int, delay: Double, newName: Bool) async {
        guard let name = await fleet.kill9(index) else { return }
        say("kill -9 \(name); back in \(String(format: "%.1f", delay)) s "
            + (newName ? "under a new name (another worker rescues its jobs)" : "under the same name (its heartbeat releases its jobs)"))
        try? await Task.sleep(for: .milliseconds(Int(delay * 1000)))
        do {
            try await fleet.restart(index, newName: newName)
        } catch {
            actionErrors.append("restarting worker \(name) failed: \(error)")
        }
    }

    func restartPostgres() async {
        say("PostgreSQL: fast shutdown and restart")
        do {
            let seconds = try await cluster.restartFast()
            pgRestartSeconds.append(seconds)
            say(String(format: "PostgreSQL back after %.1f s", seconds))
        } catch {
            actionErrors.append("\(error)")
        }
    }

    func restartDevServer() async {
        say("dev server: SIGKILL, then started again on the same port and storage")
        do {
            try await dev.crashAndRestart(tokenLifetime: settings.tokenLifetime, faults: faults)
            devServerRestarts += 1
            say("dev server back")
        } catch {
            actionErrors.append("restarting the dev server failed: \(error)")
        }
    }

    // MARK: The zombie

    /// Pauses a worker that holds jobs (preferably an upload session in flight) with SIGSTOP, waits until other
    /// workers rescued and claimed its jobs, resumes it, and watches its log for the refusal of its late writes.
    func makeZombie() async {
        let deadline = chaosStarted.addingTimeInterval(settings.duration * 0.85)
        let began = Date()
        while Date() < deadline {
            // For a few seconds only a worker in the middle of a transfer will do (an upload session or a download
            // with bytes on disk), the one holding the most jobs; then any worker holding a job.
            let inFlightOnly = Date().timeIntervalSince(began) < 6
            var candidates: [(index: Int, name: String, jobs: Int)] = []
            for index in await fleet.killable() {
                guard let name = await fleet.names().first(where: { $0.index == index })?.name,
                      let rows = try? await database.rows(
                        """
                        SELECT count(*), count(*) FILTER (WHERE (kind = 'upload' AND session IS NOT NULL) OR (kind = 'fetch' AND bytes_done > 0))
                          FROM ferry.jobs WHERE state = 'running' AND worker = $1
                        """, [name]),
                      let held = Int(rows.first?.values[0] ?? ""), let inFlight = Int(rows.first?.values[1] ?? ""),
                      held > 0, inFlight > 0 || !inFlightOnly
                else { continue }
                candidates.append((index, name, held))
            }
            for (index, name, _) in candidates.sorted(by: { $0.jobs > $1.jobs }) {
                guard await fleet.pause(index) else { continue }
                // What it holds now that it cannot change anything any more. Under a reused name, claims of the
                // incarnation killed before it (not yet released by its heartbeat) are not its own: it never ran them.
                guard let process = await fleet.process(index) else { continue }
                // A statement it sent just before the signal still commits: let it land first.
                try? await Task.sleep(for: .milliseconds(300))
                let held = (try? await database.rows(
                    """
                    SELECT j.job_id, j.lease, (j.kind = 'upload' AND j.session IS NOT NULL) OR (j.kind = 'fetch' AND j.bytes_done > 0)
                      FROM ferry.jobs j
                      JOIN ferry.events e ON e.job_id = j.job_id AND e.type = 'claimed' AND (e.data->>'lease')::bigint = j.lease
                     WHERE j.state = 'running' AND j.worker = $1 AND e.recorded_at > to_timestamp($2)
                    """, [name, process.startedAt.timeIntervalSince1970])) ?? []
                guard !held.isEmpty else {
                    await fleet.resume(index, protectFor: 0)
                    continue
                }
                let jobs = held.compactMap { row -> ZombieRecord.HeldJob? in
                    guard let id = try? row.decode(UUID.self, at: 0), let lease = try? row.decode(Int64.self, at: 1) else { return nil }
                    return ZombieRecord.HeldJob(jobID: id, lease: lease, inFlight: (try? row.decode(Bool.self, at: 2)) ?? false)
                }
                var record = ZombieRecord(worker: name, slot: index, held: jobs, pausedAt: Date(), logPath: process.logPath)
                say("zombie: SIGSTOP \(name) holding \(jobs.count) job(s), \(jobs.count(where: \.inFlight)) in the middle of a transfer")
                await superviseZombie(&record, process: process)
                zombie = record
                return
            }
            try? await Task.sleep(for: .milliseconds(300))
        }
        zombieNote = "no worker held a job when it was tried"
        say("zombie: not made (\(zombieNote))")
    }

    private func superviseZombie(_ record: inout ZombieRecord, process: ManagedProcess) async {
        // Past its lease: the heartbeat goes stale after --rescue-after, a live worker rescues the jobs and
        // another claims them (a newer lease).
        let ids = record.held.map(\.jobID)
        let limit = Date().addingTimeInterval(settings.rescueAfter + 30)
        while Date() < limit {
            if let rows = try? await database.rows(
                "SELECT job_id, lease FROM ferry.jobs WHERE job_id = ANY ($1::uuid[])", [PostgresArray(ids)])
            {
                let leases = Dictionary(uniqueKeysWithValues: rows.compactMap { row -> (UUID, Int64)? in
                    guard let id = try? row.decode(UUID.self, at: 0), let lease = try? row.decode(Int64.self, at: 1) else { return nil }
                    return (id, lease)
                })
                if record.held.allSatisfy({ (leases[$0.jobID] ?? 0) > $0.lease }) {
                    record.takenOver = true
                    break
                }
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        // Let the new owners get going, so the zombie wakes up in the middle of their work.
        try? await Task.sleep(for: .seconds(1))
        record.logOffset = process.logSize
        await fleet.resume(record.slot, protectFor: 300)
        record.resumedAt = Date()
        say(String(format: "zombie: SIGCONT %@ after %.1f s; its jobs %@ by other workers", record.worker, record.pausedSeconds,
                   record.takenOver ? "had been claimed again" : "had NOT all been claimed again"))
        // It must live long enough to try its late writes: it stays protected from kill -9 until they show.
        let watch = Date().addingTimeInterval(90)
        while Date() < watch {
            record.refusalsLogged = Self.refusals(in: record.logPath, from: record.logOffset, jobs: Set(ids))
            if record.refusalsLogged.count == ids.count { break }
            try? await Task.sleep(for: .milliseconds(500))
        }
        await fleet.unprotect(record.slot)
        say("zombie: \(record.worker) logged \(record.refusalsLogged.count) of \(ids.count) late write(s) refused by the fence")
    }

    /// Held jobs whose late write the worker logged as refused: a progress event refused ("claim lost"), an
    /// outcome not written because the claim had ended, or a commit not made because the lease had lapsed ("lease
    /// lapsed", the fence for effects: the job stopped before writing anything).
    static func refusals(in logPath: String, from offset: Int, jobs: Set<UUID>) -> Set<UUID> {
        guard let handle = FileHandle(forReadingAtPath: logPath) else { return [] }
        defer { try? handle.close() }
        try? handle.seek(toOffset: UInt64(offset))
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        var found: Set<UUID> = []
        for line in text.split(separator: "\n") {
            guard let entry = try? JSONValue.parse(String(line)), let message = entry["message"]?.stringValue else { continue }
            var mentioned: [String] = []
            if message.hasPrefix("claim lost") || message.hasPrefix("lease lapsed"), let job = entry["job"]?.stringValue {
                mentioned = [job]
            } else if message.hasPrefix("outcomes not written"), let list = entry["job_ids"]?.stringValue {
                mentioned = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
            for text in mentioned {
                if let id = UUID(uuidString: text), jobs.contains(id) { found.insert(id) }
            }
        }
        return found
    }

    // MARK: Drain

    /// Every worker back, faults still on: wait (with `ferry wait`, a real process) until the batch completed,
    /// then stop the workers with SIGTERM and turn the faults off for the checks.
    func drain() async throws {
        try await fleet.ensureAllRunning()
        say("chaos over: all \(settings.workers) workers running, faults still on; ferry wait --batch \(batch)")
        let began = Date()
        let result = try await cli.run(
            ["wait", "--batch", batch, "--timeout", "\(Int(settings.drainTimeout))", "--interval", "1"], timeout: settings.drainTimeout + 60)
        drainSeconds = Date().timeIntervalSince(began)
        waitStatus = result.status
        say(String(format: "ferry wait exited %d after %.1f s", result.status, drainSeconds))
        if result.status != 0 {
            for line in result.stderr.split(separator: "\n").prefix(10) { say("  " + line) }
        }
        monitor?.cancel()
        await monitor?.value
        workerExits = await fleet.stopAll(timeout: 30)
        say("workers stopped with SIGTERM: " + workerExits.map { "\($0.name) exit \($0.status.map { "\($0)" } ?? "none (killed)")" }.joined(separator: ", "))
        await dev.pollStats()
        try await dev.setFaults(.object([:]))
    }
}
