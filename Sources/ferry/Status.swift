import ArgumentParser
import FerryCore
import FerryStore
import Foundation

struct Status: AsyncParsableCommand, DatabaseCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show jobs, a batch or a queue from the status views.",
        discussion: """
            Without arguments: per-queue counts and recent batches. The same data is plain SQL: see \
            ferry.job_status, ferry.batch_status and ferry.queue_stats in docs/sql-reference.md.

            With --read-database-url (or $FERRY_READ_DATABASE_URL) it reads from that server, for example a hot \
            standby. On a standby it says first how old the newest replayed commit is (in --json of the overview, --batch and --queue: \
            "standby").

            Examples:
              ferry status 0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10
              ferry status --batch trip
              ferry status --batch trip --state failed
              ferry status --state failed --account photos
              ferry status --search 'account is full'
              ferry status 0193a0c4
              ferry status --queue photos --json

            A batch lists its jobs failed first, then discarded, cancelled, running, queued and succeeded ones \
            (each in enqueue order), and says how many it does not show; --state STATE lists the jobs in one \
            state; without --batch, --state, --account, --provider and --queue list jobs of every batch, newest first (among the \
            newest \(FerryReads.jobListScanLimit) of the state). --search TEXT finds jobs across batches by id, path, error text, error:CODE or KEY=VALUE. A job id may be shortened to any start that only one job has.
              ferry status --batch trip --read-database-url postgresql://standby/ferry
            """)

    @Argument(help: ArgumentHelp("A job id, or a start of one that only one job has.", valueName: "job"), completion: CompletionValues.job)
    var job: String?

    @Option(help: ArgumentHelp("Show one batch and its jobs (failed first).", valueName: "name"), completion: CompletionValues.batch)
    var batch: String?

    @Option(
        name: [.customLong("state"), .customLong("status")],
        help: ArgumentHelp(
            "Only the jobs in this state (queued, running, succeeded, failed, cancelled, discarded): of --batch, or of every batch; --status is the same.",
            valueName: "state"))
    var state: String?

    @Option(help: ArgumentHelp("Only the jobs of this account, of every batch (with --state and --queue if given).", valueName: "name"))
    var account: String?

    @Option(help: ArgumentHelp("Only the jobs whose account is of this provider (as ferry account list shows it), of every batch.", valueName: "name"))
    var provider: String?

    @Option(
        help: ArgumentHelp(
            "Find jobs of every batch, newest first: a job id start, path text, error text, error:CODE or KEY=VALUE (as the dashboard's search).",
            valueName: "text"))
    var search: String?

    @Option(help: ArgumentHelp("Show one queue's counts and jobs.", valueName: "name"), completion: CompletionValues.queue)
    var queue: String?

    @Option(help: "Show at most this many jobs (100), or batches in the overview (20).")
    var limit: Int?

    @OptionGroup var common: CommandOptions
    @OptionGroup var reads: ReadConnectionOptions
    @OptionGroup var database: DatabaseWaitOptions

    func run() async throws {
        try await runReporting {
            // --state, --account (and --queue with either) without a batch: jobs of every batch.
            let listing = job == nil && batch == nil && (state != nil || account != nil || provider != nil)
            let chosen = [job != nil, batch != nil, queue != nil && !listing, search != nil].filter { $0 }.count
            guard chosen <= 1 else { throw CLIUsageError(message: "give one of JOB, --batch, --queue or --search") }
            if listing && search != nil {
                throw CLIUsageError(message: "--search finds jobs by itself: leave out --state, --account and --provider, or list by them without --search")
            }
            if state != nil && job != nil { throw CLIUsageError(message: "--state lists the jobs of a batch or of every batch; leave out JOB") }
            if (account != nil || provider != nil) && !listing {
                throw CLIUsageError(message: "--account and --provider list the jobs of every batch; leave out JOB and --batch")
            }
            let found = try search.map(Self.parseSearch)
            if let limit, limit < 1 { throw CLIUsageError(message: "--limit must be at least 1") }
            let states = try Self.states(state)
            let jobLimit = limit ?? 100
            // Reads only: trying again is always safe.
            try await database.resolved().run {
                return try await reads.withStore(connection) { store in
                    // On a hot standby (through either URL) the reader is told how stale the answer may be.
                    let standby = try await store.reads.standbyStatus()
                    if !json, let standby { print(standby.summary + "\n") }
                    // The JSON object, with the standby's state when there is one.
                    func output(_ fields: [String: JSONValue]) -> String {
                        var fields = fields
                        if let standby { fields["standby"] = standby.json }
                        return JSONValue.object(fields).jsonText
                    }
                    if let job {
                        let id = try await JobID.resolve(job, in: store)
                        guard let row = try await store.reads.jobStatus(.job(id)).first else {
                            throw Self.missing(job: id, try await store.archive.job(id), json: json)
                        }
                        // Provider options a retry changed (ferry retry --option) are part of what the job now does.
                        let retried = try await store.retryOptions(of: id)
                        // A job's object stays the job's own (the standby's state goes with overviews only).
                        if json {
                            guard !retried.isEmpty, case .object(var fields) = row.json else { return print(row.json.jsonText) }
                            fields["retry_options"] = .object(retried)
                            return print(JSONValue.object(fields).jsonText)
                        }
                        printDetail(row, retried: retried)
                    } else if let batch {
                        try await showBatch(batch, states: states, limit: jobLimit, store: store, output: output)
                    } else if listing {
                        let filter = JobListFilter(state: states.count == 1 ? states.first : nil, queue: queue, account: account, provider: provider)
                        let jobs = try await store.reads.listJobs(filter, limit: min(jobLimit, 1000))
                        if json { return print(output(["jobs": .array(jobs.map(\.json))])) }
                        if jobs.isEmpty { return print("no job matches (among the newest \(FerryReads.jobListScanLimit) of the state)") }
                        printJobs(jobs, limit: min(jobLimit, 1000))
                    } else if let found {
                        let jobs = try await store.reads.searchJobs(found, limit: min(jobLimit, FerryReads.searchPageSize))
                        if json {
                            let query = JSONValue.object(["text": .string(search ?? ""), "kind": .string(found.kind)])
                            return print(output(["search": query, "jobs": .array(jobs.map(\.json))]))
                        }
                        if jobs.isEmpty { return print("no job matches (\(found.kind) search)") }
                        printJobs(jobs, limit: .max)
                        if jobs.count == FerryReads.searchPageSize {
                            print("(the newest \(FerryReads.searchPageSize) matches; narrow the search, or page further in the dashboard's search)")
                        }
                    } else if let queue {
                        let stats = try await store.reads.queueStats(queue)
                        let jobs = try await store.reads.jobStatus(.queue(queue), limit: jobLimit)
                        if json {
                            // One object for the queue, as --batch prints one for the batch; its counts per state inside.
                            let summary = JSONValue.object([
                                "queue": .string(queue), "paused": .bool(stats.contains(where: \.paused)),
                                "jobs": .int(stats.reduce(0) { $0 + $1.jobs }), "states": .array(stats.map(\.json)),
                            ])
                            return print(output(["queue": summary, "jobs": .array(jobs.map(\.json))]))
                        }
                        printQueues(stats)
                        print("")
                        printJobs(jobs, limit: jobLimit)
                    } else {
                        let stats = try await store.reads.queueStats()
                        let batches = try await store.reads.batchStatus(nil, limit: limit ?? 20)
                        if json {
                            return print(output(["queues": .array(stats.map(\.json)), "batches": .array(batches.map(\.json))]))
                        }
                        printQueues(stats)
                        if !batches.isEmpty {
                            print("")
                            printBatches(batches)
                            if batches.count == (limit ?? 20) { print("(newest \(limit ?? 20) batches; use --limit for more)") }
                        }
                    }
                }
            }
        }
    }

    /// `--search`'s text as the dashboard's search box reads it; text it cannot search is refused with an example.
    static func parseSearch(_ text: String) throws -> JobSearch {
        do { return try JobSearch(parsing: text) } catch {
            throw ValidationIssue(
                field: "--search", problem: error.message,
                fix: "for example --search error:http_not_found, --search 'account is full' or --search title=Café")
        }
    }

    func printDetail(_ row: JobStatusRow, retried: [String: JSONValue] = [:]) {
        var fields: [(String, String)] = [
            ("job", row.jobID.uuidString.lowercased()), ("kind", row.kind), ("status", row.status),
            ("queue", row.queue), ("batch", row.batch ?? "-"), ("attempt", "\(row.attempt)/\(row.maxAttempts)"),
            ("priority", "\(row.priority)"), ("source", row.source), ("destination", row.destination),
            ("progress", "\(TablePrinter.bytes(row.bytesDone)) of \(TablePrinter.bytes(row.bytesTotal)) (\(row.percent ?? "-")%)"),
            ("worker", row.worker ?? "-"), ("last error", row.lastError ?? "-"), ("run at", row.runAt.iso8601),
            ("enqueued", row.enqueuedAt.iso8601), ("started", row.startedAt?.iso8601 ?? "-"),
            ("finished", row.finishedAt?.iso8601 ?? "-"), ("events", "\(row.eventCount)"),
        ]
        if !retried.isEmpty {
            let text = retried.keys.sorted().map { name in
                "\(name)=" + (retried[name]?.stringValue ?? retried[name]?.jsonText ?? "")
            }
            fields.append(("options", text.joined(separator: " ") + " (changed by ferry retry)"))
        }
        for (name, value) in fields {
            print(name.padding(toLength: 12, withPad: " ", startingAt: 0) + TablePrinter.printable(value))
        }
    }

    func printJobs(_ rows: [JobStatusRow], limit: Int, notShown: Int64? = nil) {
        print(
            TablePrinter.render(
                headers: ["JOB", "KIND", "STATUS", "ATTEMPT", "PROGRESS", "DESTINATION", "LAST ERROR"],
                rows: rows.map {
                    [
                        $0.jobID.uuidString.lowercased(), $0.kind, $0.status, "\($0.attempt)/\($0.maxAttempts)",
                        ($0.percent ?? "-") + "%", $0.destination, $0.lastError.map { String($0.prefix(60)) } ?? "",
                    ]
                }))
        if let notShown {
            if notShown > 0 { print("(\(notShown) more job(s) not shown; use --state STATE or --limit)") }
        } else if rows.count == limit {
            print("(first \(limit) jobs; use --limit for more)")
        }
    }

    func printBatches(_ rows: [BatchStatusRow]) {
        print(
            TablePrinter.render(
                headers: ["BATCH", "JOBS", "QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED", "DISCARDED", "BYTES", "PERCENT", "DONE"],
                rows: rows.map {
                    [
                        $0.batch, "\($0.jobs)", "\($0.queued)", "\($0.running)", "\($0.succeeded)", "\($0.failed)",
                        "\($0.cancelled)", "\($0.discarded)",
                        Self.batchBytes($0), Self.batchPercent($0), $0.done ? "yes" : "no",
                    ]
                }))
        // The counts above are of the jobs still in PostgreSQL.
        for row in rows {
            guard let archived = row.archived.summary(bytes: TablePrinter.bytes) else { continue }
            print(TablePrinter.printable("batch \(row.batch): also \(archived) (\(row.archived.restoreCommands.first ?? "") brings them back)"))
        }
    }

    func printQueues(_ rows: [QueueStatsRow]) {
        if rows.isEmpty { return print("no jobs") }
        print(
            TablePrinter.render(
                headers: ["QUEUE", "STATE", "JOBS", "DUE", "OLDEST WAIT"],
                rows: rows.map {
                    [$0.queue + ($0.paused ? " (paused)" : ""), $0.state, "\($0.jobs)", "\($0.due)", String(format: "%.1fs", $0.oldestWaitingSeconds)]
                }))
    }
}
