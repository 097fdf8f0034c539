import FerryCore
import Foundation
import Postgres

extension ChaosRun {
    /// The exact checks: every one compares what should be with what is.
    func check() async throws -> [CheckResult] {
        say("checking")
        var results: [CheckResult] = []
        results += try await checkJobs()
        results += try await checkServerFiles()
        results.append(try await checkDestinationNames())
        results.append(checkFetchedFiles())
        results.append(try await checkProjection())
        results.append(try await checkRunningPastLease())
        if settings.zombie { results.append(try await checkZombie()) }
        results.append(try await checkBatch())
        results.append(checkWorkerExits())
        results.append(await checkWorkerLogs())
        let crashes = await fleet.crashes + dev.crashes
        results.append(CheckResult(
            name: "processes that died on their own (workers, dev server)", expected: "0", found: "\(crashes.count)",
            passed: crashes.isEmpty, details: crashes))
        return results
    }

    // MARK: Jobs

    private func checkJobs() async throws -> [CheckResult] {
        let rows = try await database.rows(
            """
            SELECT j.job_id::text, j.idempotency_key, j.state, j.destination, coalesce(j.last_error, ''),
                   (SELECT count(*) FROM ferry.events e WHERE e.job_id = j.job_id AND e.type = 'succeeded')
              FROM ferry.jobs j
            """)
        struct Job {
            var id: String, key: String?, state: String, destination: String, error: String, successes: Int
        }
        let jobs = rows.map {
            Job(id: $0.values[0] ?? "", key: $0.values[1], state: $0.values[2] ?? "", destination: $0.values[3] ?? "",
                error: $0.values[4] ?? "", successes: Int($0.values[5] ?? "") ?? 0)
        }
        let expected = Set(expectedKeys)
        let byKey = Dictionary(jobs.compactMap { job in job.key.map { ($0, job) } }, uniquingKeysWith: { first, _ in first })
        let children = jobs.filter { !expected.contains($0.key ?? "") }
        let expectedChildren = Set(corpus.files.filter { $0.role == .folderFetch }.compactMap(\.fetchedPath))

        var lost: [String] = []
        for key in expectedKeys.sorted() {
            guard let job = byKey[key] else {
                lost.append("\(key): never enqueued")
                continue
            }
            if job.state != "succeeded" { lost.append("\(key) (\(job.id)): \(job.state) \(job.error)") }
        }
        let childDestinations = Set(children.map(\.destination))
        for missing in expectedChildren.subtracting(childDestinations).sorted() {
            lost.append("folder child for \(missing): never enqueued by the listing")
        }
        for child in children where child.state != "succeeded" {
            lost.append("folder child \(child.destination) (\(child.id)): \(child.state) \(child.error)")
        }
        let expectedTotal = expected.count + expectedChildren.count
        let unexpected = children.filter { !expectedChildren.contains($0.destination) }.map { "\($0.destination) (\($0.id))" }
            + (children.count > childDestinations.count ? ["\(children.count - childDestinations.count) duplicate child job(s)"] : [])
        let twice = jobs.filter { $0.successes > 1 }.map { "\($0.id) (\($0.key ?? $0.destination)): \($0.successes) succeeded events" }
        let never = jobs.filter { $0.state == "succeeded" && $0.successes != 1 }.map { "\($0.id): state succeeded with \($0.successes) succeeded events" }
        return [
            CheckResult(name: "jobs enqueued (uploads, fetches, the listing and its children)", expected: "\(expectedTotal)",
                        found: "\(jobs.count)", passed: jobs.count == expectedTotal && unexpected.isEmpty, details: unexpected),
            CheckResult(name: "jobs lost (missing, or not succeeded)", expected: "0", found: "\(lost.count)", passed: lost.isEmpty, details: lost),
            CheckResult(name: "jobs succeeded more than once", expected: "0", found: "\(twice.count)", passed: twice.isEmpty && never.isEmpty,
                        details: twice + never),
            CheckResult(name: "`ferry wait --batch` exit code", expected: "0", found: "\(waitStatus)", passed: waitStatus == 0),
        ]
    }

    // MARK: Server

    private func checkServerFiles() async throws -> [CheckResult] {
        let token = try await dev.accessToken(refreshToken: ownRefreshToken)
        let entries = try await dev.listEverything(token: token)
        var onServer: [String: (size: Int64, hash: String)] = [:]
        for entry in entries where entry[".tag"]?.stringValue == "file" {
            guard let path = entry["path_display"]?.stringValue else { continue }
            onServer[path] = (entry["size"]?.intValue ?? -1, entry["content_hash"]?.stringValue ?? "")
        }
        let expectedFiles = corpus.files.filter { $0.role != .webFetch }
        let expectedPaths = Set(expectedFiles.map(\.remotePath))
        let missing = expectedPaths.subtracting(onServer.keys).sorted().map { "missing: \($0)" }
        let extra = Set(onServer.keys).subtracting(expectedPaths).sorted().map { "not a source (a renamed copy?): \($0)" }

        var mismatched: [String] = []
        for file in corpus.uploads {
            guard let stored = onServer[file.remotePath] else { continue }
            let ours = try ContentDigest.dropbox(file.localPath)
            if stored.hash != ours || stored.size != Int64(file.size) {
                mismatched.append("\(file.remotePath): server \(stored.size) bytes \(stored.hash), source \(file.size) bytes \(ours)")
            }
        }
        let compared = corpus.uploads.count - corpus.uploads.filter { onServer[$0.remotePath] == nil }.count
        return [
            CheckResult(name: "files on the server = the sources (no renamed copies)", expected: "\(expectedPaths.count)",
                        found: "\(onServer.count)", passed: missing.isEmpty && extra.isEmpty, details: missing + extra),
            CheckResult(name: "uploads' content hashes equal (server vs source)", expected: "\(corpus.uploads.count) of \(corpus.uploads.count)",
                        found: "\(compared - mismatched.count) of \(corpus.uploads.count)",
                        passed: mismatched.isEmpty && compared == corpus.uploads.count, details: mismatched),
        ]
    }

    // MARK: Names

    /// No name at any destination that Ferry racing itself (or a conflict) would leave: `photo (1).jpg`-style
    /// renamed copies, `conflicted copy`, two objects under one key (Dropbox paths compare without case).
    func checkDestinationNames() async throws -> CheckResult {
        let token = try await dev.accessToken(refreshToken: ownRefreshToken)
        var names = try await dev.listEverything(token: token)
            .filter { $0[".tag"]?.stringValue == "file" }.compactMap { $0["path_display"]?.stringValue }
        let fm = FileManager.default
        if let walker = fm.enumerator(atPath: work + "/fetched") {
            for case let path as String in walker where !path.hasPrefix(".chaos-fill") { names.append("fetched/" + path) }
        }
        var problems: [String] = []
        for name in names where Self.isRenamedCopy((name as NSString).lastPathComponent) { problems.append("renamed or conflicted copy: \(name)") }
        let byKey = Dictionary(grouping: names) { $0.lowercased() }
        for (key, group) in byKey where group.count > 1 { problems.append("\(group.count) objects under one key: \(key)") }
        return CheckResult(
            name: "names at the destinations: no `(1)`-style or conflicted copy, one object per key", expected: "0 of \(names.count)",
            found: "\(problems.count) of \(names.count)", passed: problems.isEmpty, details: problems.sorted())
    }

    /// `name (1).jpg`, `name (2)`, `name (conflicted copy).jpg`: what autorename and conflict handling leave.
    static func isRenamedCopy(_ name: String) -> Bool {
        let stem = (name as NSString).deletingPathExtension
        if stem.lowercased().contains("conflicted copy") { return true }
        guard stem.hasSuffix(")"), let open = stem.range(of: " (", options: .backwards) else { return false }
        let inside = stem[open.upperBound..<stem.index(before: stem.endIndex)]
        return !inside.isEmpty && inside.allSatisfy(\.isNumber)
    }

    // MARK: Local files

    private func checkFetchedFiles() -> CheckResult {
        let fm = FileManager.default
        var problems: [String] = []
        var identical = 0
        let fetches = corpus.fetches
        for file in fetches {
            guard let target = file.fetchedPath else { continue }
            guard fm.fileExists(atPath: target) else {
                problems.append("missing: \(target)")
                continue
            }
            do {
                if try ContentDigest.sha256(target) == ContentDigest.sha256(file.localPath) {
                    identical += 1
                } else {
                    problems.append("differs from its source: \(target)")
                }
            } catch {
                problems.append("\(error)")
            }
        }
        // Nothing else in the target folders: no temporary .part files left behind, no extra copies.
        let expectedByFolder = Dictionary(grouping: fetches.compactMap(\.fetchedPath)) { ($0 as NSString).deletingLastPathComponent }
        for (folder, paths) in expectedByFolder {
            let names = Set((try? fm.contentsOfDirectory(atPath: folder)) ?? [])
            let wanted = Set(paths.map { ($0 as NSString).lastPathComponent })
            for stray in names.subtracting(wanted).sorted() { problems.append("stray file: \(folder)/\(stray)") }
        }
        return CheckResult(
            name: "fetched files byte-identical (SHA-256), nothing else left", expected: "\(fetches.count) of \(fetches.count)",
            found: "\(identical) of \(fetches.count)", passed: problems.isEmpty && identical == fetches.count, details: problems)
    }

    // MARK: Database

    private func checkProjection() async throws -> CheckResult {
        let result = try await cli.run(["projection", "verify"])
        let lines = (result.stdout + result.stderr).split(separator: "\n").map(String.init)
        return CheckResult(
            name: "`ferry projection verify`", expected: "exit 0", found: "exit \(result.status)", passed: result.status == 0,
            details: result.status == 0 ? [] : lines)
    }

    private func checkRunningPastLease() async throws -> CheckResult {
        let rows = try await database.rows(
            """
            SELECT j.job_id::text, coalesce(j.worker, '?') FROM ferry.jobs j LEFT JOIN ferry.workers w ON w.name = j.worker
             WHERE j.state = 'running' AND (w.name IS NULL OR w.heartbeat_at < now() - make_interval(secs => $1))
            """, [settings.rescueAfter])
        return CheckResult(
            name: "jobs left running past their lease", expected: "0", found: "\(rows.count)", passed: rows.isEmpty,
            details: rows.map { "\($0.values[0] ?? "") held by \($0.values[1] ?? "")" })
    }

    /// For each job the zombie held: its claim ended (rescued) while it was paused, another worker claimed it
    /// with a newer lease, no event after that carries the zombie's lease, it succeeded exactly once under a
    /// newer lease, and the zombie's log shows its late write refused.
    private func checkZombie() async throws -> CheckResult {
        guard let zombie else {
            return CheckResult(name: "zombie's late writes refused by the fence", expected: "a zombie", found: "none", passed: false,
                               details: [zombieNote])
        }
        // Read the whole log again: the zombie may have written more after the watch ended.
        let refused = Self.refusals(in: zombie.logPath, from: zombie.logOffset, jobs: Set(zombie.held.map(\.jobID)))
        var problems: [String] = []
        var fenced = 0
        for held in zombie.held {
            let events = try await database.rows(
                "SELECT version, type, coalesce((data->>'lease')::bigint, -1), coalesce(data->>'worker', '') FROM ferry.events WHERE job_id = $1 ORDER BY version",
                [held.jobID])
            let list = events.map { (version: Int($0.values[0] ?? "") ?? 0, type: $0.values[1] ?? "", lease: Int64($0.values[2] ?? "") ?? -1, worker: $0.values[3] ?? "") }
            let id = held.jobID.uuidString.lowercased()
            guard let end = list.firstIndex(where: { ["rescued", "released"].contains($0.type) && $0.lease == held.lease }) else {
                problems.append("\(id): the zombie's claim (lease \(held.lease)) was never ended by a rescue")
                continue
            }
            let after = list[(end + 1)...]
            var ok = true
            if after.contains(where: { $0.lease == held.lease }) {
                problems.append("\(id): an event with the zombie's lease \(held.lease) was written after its claim ended")
                ok = false
            }
            if !after.contains(where: { $0.type == "claimed" && $0.lease > held.lease && $0.worker != zombie.worker }) {
                problems.append("\(id): no other worker claimed it after the rescue")
                ok = false
            }
            let successes = list.filter { $0.type == "succeeded" }
            if successes.count != 1 || (successes.first?.lease ?? 0) <= held.lease {
                problems.append("\(id): \(successes.count) succeeded events (leases \(successes.map(\.lease))), expected one under a lease above \(held.lease)")
                ok = false
            }
            if !refused.contains(held.jobID) {
                problems.append("\(id): the zombie's log shows no refused late write after SIGCONT")
                ok = false
            }
            if ok { fenced += 1 }
        }
        if !zombie.takenOver { problems.append("its jobs had not all been claimed by others when it was resumed") }
        return CheckResult(
            name: "zombie's late writes refused by the fence (\(zombie.worker), paused \(String(format: "%.1f", zombie.pausedSeconds)) s)",
            expected: "\(zombie.held.count) of \(zombie.held.count) jobs", found: "\(fenced) of \(zombie.held.count) jobs",
            passed: problems.isEmpty && fenced == zombie.held.count, details: problems)
    }

    private func checkBatch() async throws -> CheckResult {
        let total = try await database.value("SELECT count(*) FROM ferry.jobs WHERE batch = $1", [batch]) ?? "0"
        let rows = try await database.rows(
            "SELECT type, coalesce(data->>'jobs', ''), coalesce(data->>'succeeded', '') FROM ferry.batch_events WHERE batch = $1 ORDER BY position DESC LIMIT 1",
            [batch])
        let last = rows.first.map { "\($0.values[0] ?? ""): \($0.values[2] ?? "") of \($0.values[1] ?? "") succeeded" } ?? "no batch event"
        let passed = rows.first?.values[0] == "completed" && rows.first?.values[1] == total && rows.first?.values[2] == total
        return CheckResult(name: "batch's last event", expected: "completed: \(total) of \(total) succeeded", found: last, passed: passed)
    }

    private func checkWorkerExits() -> CheckResult {
        let clean = workerExits.filter { $0.status == 0 }.count
        return CheckResult(
            name: "workers exit 0 on SIGTERM", expected: "\(workerExits.count) of \(settings.workers)", found: "\(clean) of \(settings.workers)",
            passed: clean == settings.workers && workerExits.count == settings.workers,
            details: workerExits.filter { $0.status != 0 }.map { "\($0.name): exit \($0.status.map { "\($0)" } ?? "none, killed after 30 s")" })
    }

    /// The workers run with `--log-format json`: every line of their output must be one JSON object (a raw line is
    /// a message that escaped the logger, or a crash's trace).
    private func checkWorkerLogs() async -> CheckResult {
        var lines = 0
        var bad: [String] = []
        for path in await fleet.logsByName.values.flatMap({ $0 }).sorted() {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where !line.isEmpty {
                lines += 1
                if case .object? = try? JSONValue.parse(String(line)) { continue }
                bad.append("\((path as NSString).lastPathComponent): \(line.prefix(200))")
            }
        }
        return CheckResult(
            name: "worker log lines that are not JSON (--log-format json)", expected: "0 of \(lines)", found: "\(bad.count) of \(lines)",
            passed: bad.isEmpty, details: bad)
    }

    // MARK: Report

    func makeReport(_ checks: [CheckResult]) async -> ChaosReport {
        let tally = await fleet.tally
        let faults = await dev.summed("faults_injected")
        let refreshes = await dev.summed("token_refreshes_per_account").values.reduce(0, +)
        let requests = await dev.summed("requests_per_route").values.reduce(0, +)
        let eventCounts = (try? await database.rows("SELECT type, count(*) FROM ferry.events GROUP BY type ORDER BY count(*) DESC")) ?? []
        let counts = Dictionary(uniqueKeysWithValues: eventCounts.map { ($0.values[0] ?? "", $0.values[1] ?? "0") })
        func fault(_ key: String) -> String { "\(faults[key] ?? 0)" }
        let mib = Double(corpus.totalBytes) / 1_048_576
        var lines = [
            String(format: "Ferry chaos run, seed %llu: %@ s of chaos, then %.0f s to finish; %d workers × %d; %.1f min in all",
                   settings.seed, ChaosSettings.number(settings.duration), drainSeconds, settings.workers, settings.concurrency,
                   Date().timeIntervalSince(started) / 60),
            "  replay: ferry-chaos \(settings.replayArguments)",
            String(format: "  files: %@; %.0f MiB", corpusSummary(), mib),
            "  chaos: \(tally.kills) kill -9 (\(tally.restartsSameName) restarted under the same name, \(tally.restartsNewName) under a new one), "
                + "\(pgRestartSeconds.count) PostgreSQL fast restarts (" + pgRestartSeconds.map { String(format: "%.1f s", $0) }.joined(separator: ", ")
                + "), \(devServerRestarts) dev server crash + restart, "
                + (zombie.map { String(format: "zombie %@ paused %.1f s holding %d job(s)", $0.worker, $0.pausedSeconds, $0.held.count) } ?? "no zombie"),
            "  dev server: \(requests) requests, faults injected: 5xx \(fault("failure")), dropped before \(fault("drop")) / after applying "
                + "\(fault("drop_after_apply")) / mid-chunk \(fault("partial_chunk")), 429 \(fault("rate_limit")), write contention 409 "
                + "\(fault("write_contention")) / 429 \(fault("write_rate_limit")); \(refreshes) token refreshes",
            "  events: " + ["claimed", "progress", "rescued", "released", "retry_scheduled", "deferred", "succeeded"]
                .map { "\(counts[$0] ?? "0") \($0)" }.joined(separator: ", "),
        ]
        if settings.partition { lines.append("  partitions: " + (partitionNotes.isEmpty ? "none happened" : partitionNotes.joined(separator: "; "))) }
        lines.append("")
        return ChaosReport(seed: settings.seed, header: lines, checks: checks)
    }
}
