import FerryCore
import Foundation
import Postgres

extension FailoverRun {
    /// The exact checks of a failover run.
    func check() async throws -> [CheckResult] {
        say("checking")
        var results: [CheckResult] = []
        let rows = try await database.rows(
            """
            SELECT j.job_id::text, j.state, coalesce(j.last_error, ''),
                   (SELECT count(*) FROM ferry.events e WHERE e.job_id = j.job_id AND e.type = 'succeeded'),
                   (SELECT count(*) FROM ferry.events e WHERE e.job_id = j.job_id AND e.type = 'claimed'),
                   j.destination
              FROM ferry.jobs j WHERE j.batch = $1
            """, [batch])
        struct Job { var state: String, error: String, successes: Int, claims: Int, destination: String }
        var jobs: [String: Job] = [:]
        for row in rows {
            jobs[(row.values[0] ?? "").lowercased()] = Job(
                state: row.values[1] ?? "", error: row.values[2] ?? "", successes: Int(row.values[3] ?? "") ?? 0,
                claims: Int(row.values[4] ?? "") ?? 0, destination: row.values[5] ?? "")
        }
        let acknowledged = calls.filter { $0.id != nil }
        let failedCalls = calls.filter { $0.id == nil }
        results.append(CheckResult(
            name: "enqueue calls that failed (with --wait-for-database 60s)", expected: "0", found: "\(failedCalls.count)",
            passed: failedCalls.isEmpty, details: failedCalls.map { "\($0.name): exit \($0.status) \($0.stderr.suffix(300))" }))
        let missing = acknowledged.filter { jobs[$0.id!] == nil }
        results.append(CheckResult(
            name: "acknowledged enqueues missing", expected: "0 of \(acknowledged.count)", found: "\(missing.count) of \(acknowledged.count)",
            passed: missing.isEmpty, details: missing.map { "\($0.name): \($0.id!)" }))
        let ids = Set(acknowledged.compactMap(\.id))
        let extra = jobs.keys.filter { !ids.contains($0) }
        results.append(CheckResult(
            name: "jobs in the batch = acknowledged enqueues (none twice)", expected: "\(acknowledged.count)", found: "\(jobs.count)",
            passed: extra.isEmpty && jobs.count == acknowledged.count, details: extra.sorted().map { "not acknowledged: \($0)" }))
        let unfinished = jobs.filter { $0.value.state != "succeeded" }
        results.append(CheckResult(
            name: "jobs not succeeded", expected: "0", found: "\(unfinished.count)", passed: unfinished.isEmpty,
            details: unfinished.map { "\($0.key): \($0.value.state) \($0.value.error)" }.sorted()))
        let twice = jobs.filter { $0.value.successes != 1 }
        results.append(CheckResult(
            name: "jobs without exactly one succeeded event", expected: "0", found: "\(twice.count)", passed: twice.isEmpty,
            details: twice.map { "\($0.key): \($0.value.successes) succeeded events" }.sorted()))
        results.append(CheckResult(
            name: "`ferry wait --batch` exit code", expected: "0", found: "\(waitStatus)", passed: waitStatus == 0))
        results += try await checkServer(jobs: jobs.mapValues { (claims: $0.claims, destination: $0.destination) })

        let verify = try await cli.run(["projection", "verify"])
        results.append(CheckResult(
            name: "`ferry projection verify` on the new primary", expected: "exit 0", found: "exit \(verify.status)",
            passed: verify.status == 0, details: verify.status == 0 ? [] : [String((verify.stdout + verify.stderr).suffix(1000))]))

        let names = await fleet.names().map(\.name)
        results.append(CheckResult(
            name: "workers still the processes started before the first event", expected: "\(names.count) of \(names.count)",
            found: "\(names.count - workersGone.count) of \(names.count)", passed: workersGone.isEmpty, details: workersGone))
        let idle = names.filter { (claimsAfterLastEvent[$0] ?? 0) == 0 }
        results.append(CheckResult(
            name: "workers that claimed jobs after the last event", expected: "\(names.count) of \(names.count)",
            found: "\(names.count - idle.count) of \(names.count)", passed: idle.isEmpty, details: idle.map { "\($0) claimed nothing" }))
        let badExits = workerExits.filter { $0.status != 0 }
        results.append(CheckResult(
            name: "workers exit 0 on SIGTERM", expected: "\(workerExits.count) of \(workerExits.count)",
            found: "\(workerExits.count - badExits.count) of \(workerExits.count)", passed: badExits.isEmpty,
            details: badExits.map { "\($0.name): \($0.status.map(String.init) ?? "still running")" }))
        let promoted = events.filter { $0.kind == .kill && $0.firstFinished == nil }
        results.append(CheckResult(
            name: "failovers after which a job finished on the new primary", expected: "\(settings.failovers) of \(settings.failovers)",
            found: "\(settings.failovers - promoted.count) of \(settings.failovers)",
            passed: promoted.isEmpty && events.filter { $0.kind == .kill }.count == settings.failovers))
        return results
    }

    /// On the dev server: every upload once at its path with the source's size and content hash, and no path
    /// committed more often than its job was claimed (a second commit needs a second attempt).
    private func checkServer(jobs: [String: (claims: Int, destination: String)]) async throws -> [CheckResult] {
        await dev.pollStats()
        let commits = await dev.summed("commits_per_path")
        let token = try await dev.accessToken(refreshToken: ownRefreshToken)
        var onServer: [String: (size: Int64, hash: String)] = [:]
        for entry in try await dev.listEverything(token: token) where entry[".tag"]?.stringValue == "file" {
            guard let path = entry["path_display"]?.stringValue else { continue }
            onServer[path] = (entry["size"]?.intValue ?? -1, entry["content_hash"]?.stringValue ?? "")
        }
        let files = Dictionary(corpus.uploads.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var mismatched: [String] = []
        var overcommitted: [String] = []
        var compared = 0
        for call in calls {
            guard let id = call.id, let file = files[call.name] else { continue }
            guard let stored = onServer[file.remotePath] else {
                mismatched.append("\(file.remotePath): not on the server")
                continue
            }
            let ours = try ContentDigest.dropbox(file.localPath)
            if stored.hash != ours || stored.size != Int64(file.size) {
                mismatched.append("\(file.remotePath): server \(stored.size) bytes \(stored.hash), source \(file.size) bytes \(ours)")
            } else {
                compared += 1
            }
            let committed = commits[file.remotePath.lowercased()] ?? 0
            let claims = jobs[id]?.claims ?? 0
            if committed > max(1, claims) { overcommitted.append("\(file.remotePath): committed \(committed) times in \(claims) attempt(s)") }
        }
        let expected = calls.filter { $0.id != nil }.count
        return [
            CheckResult(name: "uploads' content hashes equal (server vs source)", expected: "\(expected) of \(expected)",
                        found: "\(compared) of \(expected)", passed: mismatched.isEmpty && compared == expected, details: mismatched),
            CheckResult(name: "uploads committed more often than attempted", expected: "0", found: "\(overcommitted.count)",
                        passed: overcommitted.isEmpty, details: overcommitted),
        ]
    }

    /// The summary and figures above the table.
    func makeReport(_ checks: [CheckResult]) -> ChaosReport {
        func seconds(_ value: Double?) -> String { value.map { String(format: "%.1f s", $0) } ?? "n/a" }
        var header = [
            "",
            String(format: "failover run, seed %llu: %.0f s, %.1f minutes in all; %d uploads enqueued one per call, %d workers (concurrency %d)",
                   settings.seed, settings.duration, Date().timeIntervalSince(started) / 60, calls.count, settings.workers, settings.concurrency),
        ]
        for event in events {
            switch event.kind {
            case .switchover:
                let around = calls.filter { $0.started >= event.at.addingTimeInterval(-1) && $0.started <= event.at.addingTimeInterval(event.seconds ?? 0) }
                header.append("switchover \(event.from) → \(event.to): \(seconds(event.seconds)) until the new primary had its synchronous standby; "
                    + "longest enqueue call around it \(seconds(around.map(\.seconds).max()))")
            case .kill:
                header.append("kill -9 of \(event.from): first write on \(event.to) after \(seconds(event.firstWrite)), first job finished after "
                    + "\(seconds(event.firstFinished)); rejoined as the synchronous standby after \(seconds(event.rejoined))")
            }
        }
        let waited = calls.filter(\.waited)
        let sorted = waited.map(\.seconds).sorted()
        header.append("enqueue calls: \(calls.count), of which \(waited.count) waited for PostgreSQL (longest \(seconds(sorted.last)), "
            + "median \(seconds(sorted.isEmpty ? nil : sorted[sorted.count / 2]))); the rest took at most "
            + "\(seconds(calls.filter { !$0.waited }.map(\.seconds).max()))")
        header.append(String(format: "drain (ferry wait --batch): %.1f s", drainSeconds))
        header.append("")
        return ChaosReport(seed: settings.seed, header: header, checks: checks)
    }
}
