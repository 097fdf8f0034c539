import ArgumentParser
import FerryClient
import FerryCore
import FerryStore
import Foundation
import Postgres

struct Wait: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Block until a batch (or one job) is finished; the exit code says how it went.",
        discussion: """
            A batch is finished when none of its jobs is queued or running. ferry wait listens on the \
            ferry_batch channel, so it returns as soon as the batch completes, and also reads the state again \
            every --interval seconds, so a missed notification or a lost connection (it reconnects) never leaves \
            it hanging. A single job is read every --interval seconds (and on its batch's completion).

            --read-database-url (or $FERRY_READ_DATABASE_URL) reads from another server, for example a hot \
            standby. A standby refuses LISTEN (SQLSTATE 25006) and hears no notifications: ferry wait says so once \
            on stderr and reads every --interval seconds; it sees the batch finished once the standby has replayed \
            it (the replication lag after the primary).

            --progress: on a terminal, lines redrawn in place: jobs and bytes done of total, rate and ETA (or \
            why it is not known yet), then each transfer in flight with its rate, as rclone -P shows them, and, \
            while nothing runs, why: a paused queue, a held account, jobs deferred until a time, no live worker \
            or every slot busy. Otherwise the same as plain lines at the start, every 2 seconds and at the end.

            Exit codes: 0 every job succeeded; 1 some failed or were cancelled (the first few are listed on \
            stderr with their last error); 66 no such batch or job; 67 archived (the file and the restore \
            command are named); 75 --timeout passed first; 130 interrupted \
            (SIGINT); 69 PostgreSQL unavailable at the start.

            Examples:
              ferry wait --batch trip
              ferry wait --batch trip --progress --timeout 3600
              ferry wait 0193a0c4-6f1e-7c55-9b1e-2f8f3b6f9d10 && echo uploaded
              ferry wait --batch trip --read-database-url postgresql://standby/ferry
            """)

    @Argument(help: ArgumentHelp("A job id, or a start of one that only one job has.", valueName: "job"), completion: CompletionValues.job)
    var job: String?

    @Option(help: ArgumentHelp("Wait for every job of this batch.", valueName: "name"), completion: CompletionValues.batch)
    var batch: String?

    @Flag(help: "Show progress: a live line on a terminal, plain lines every 2 s otherwise.")
    var progress = false

    @Option(help: ArgumentHelp("Give up after this many seconds (exit 75).", valueName: "s"))
    var timeout: Double?

    @Option(help: ArgumentHelp("Seconds between reads of the state when no notification arrives.", valueName: "s"))
    var interval: Double = 1

    @Flag(help: "Print the outcome as JSON (counts, bytes, and the first failures with their errors).")
    var json = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var reads: ReadConnectionOptions
    @OptionGroup var database: DatabaseWaitOptions

    /// Jobs listed when some did not succeed.
    static let listedFailures = 5

    func run() async throws {
        let output = TerminalOutput.standard
        let interrupt = InterruptHandler(output: output)
        defer { withExtendedLifetime(interrupt) {} }
        try await runReporting {
            try CommandTarget.check(job: job, batch: batch)
            if json && progress {
                throw CLIUsageError(message: "--progress draws on standard output; with --json leave it out")
            }
            if let timeout, !(timeout > 0) {
                throw ValidationIssue(field: "--timeout", problem: "must be more than 0 seconds", fix: "give a positive number")
            }
            guard interval >= 0.1, interval <= 3600 else {
                throw ValidationIssue(field: "--interval", problem: "must be from 0.1 to 3600 seconds", fix: "pick a value in range")
            }
            // Once it has read the state, a wait rides out connection losses by itself; this covers the start.
            let target = try await database.resolved().run {
                try await reads.withStore(connection) { probe in
                    _ = try await probe.appliedSchemaVersion()
                    return try await resolveTarget(in: probe)
                }
            }
            try await reads.withStore(connection) { store in
                try await waitUntilFinished(target, store: store, output: output)
            }
        }
    }

    /// The batch's completion record, or nil when it has none or the login may not read `ferry.batch_events` (a
    /// ferry_reader: the archived answer that follows says what happened to the batch).
    static func completion(of batch: String, store: FerryStore) async throws -> BatchEventRecord? {
        do {
            guard let last = try await store.reads.batchEvents(of: batch).last, last.kind == .completed else { return nil }
            return last
        } catch where FerryStoreError.code(of: error) == .permissionDenied {
            return nil
        }
    }

    enum Target {
        case batch(String)
        case job(UUID)
    }

    /// The job (a start of its id resolved in `store`) or the batch to wait for.
    func resolveTarget(in store: FerryStore) async throws -> Target {
        if let job { return .job(try await JobID.resolve(job, in: store)) }
        return .batch(batch ?? "")
    }

    func waitUntilFinished(_ target: Target, store: FerryStore, output: TerminalOutput) async throws {
        var bar = progress ? ProgressBar(style: output.isTerminal ? .live : .lines, output: output) : nil
        let deadline = timeout.map { ContinuousClock.now + Self.duration($0) }
        let period = min(Self.duration(interval), bar?.refreshInterval ?? .seconds(3600))
        // The batch whose ferry_batch notifications wake us: the target, or the job's batch once known.
        var wakingBatch: String? = if case .batch(let name) = target { name } else { nil }
        var hasRead = false
        var backoff = Duration.milliseconds(100)
        var disconnected = false
        var liveness = WorkerLivenessCheck()
        var details = WaitDetails()
        // How to sleep between reads: on the batch's notifications, or on a timer once a hot standby refused LISTEN.
        let client = FerryClient(store: store, providers: .standard)
        var waiting = BatchWaiting()
        while true {
            let snapshot: WaitSnapshot
            do {
                switch target {
                case .batch(let name):
                    guard let row = try await store.reads.batchStatus(name).first else {
                        // Every job archived: the batch's completion record still says how it ended.
                        if !json, let last = try await Self.completion(of: name, store: store) {
                            let discarded = last.count("discarded") ?? 0
                            print("batch \(name): completed at \(last.recordedAt.iso8601): "
                                + "\(last.count("jobs") ?? 0) job(s), \(last.count("succeeded") ?? 0) succeeded, "
                                + "\(last.count("failed") ?? 0) failed, \(last.count("cancelled") ?? 0) cancelled"
                                + (discarded > 0 ? ", \(discarded) discarded" : ""))
                        }
                        throw Status.missing(batch: name, try await store.archive.batch(name), json: json)
                    }
                    snapshot = WaitSnapshot(batch: row)
                case .job(let id):
                    guard let row = try await store.reads.jobStatus(.job(id)).first else {
                        throw Status.missing(job: id, try await store.archive.job(id), json: json)
                    }
                    wakingBatch = row.batch
                    snapshot = WaitSnapshot(job: row)
                }
                hasRead = true
                backoff = .milliseconds(100)
                if disconnected {
                    output.endLine()
                    printError("reconnected to PostgreSQL")
                    disconnected = false
                }
            } catch where hasRead && FerryStoreError.code(of: error) == .connectionLost {
                // A restart or a network blip: keep waiting (until --timeout) rather than fail a long wait.
                if !disconnected {
                    output.endLine()
                    printError("warning: lost the connection to PostgreSQL (\(FerryStoreError(classifying: error)?.message ?? "\(error)")); retrying")
                    disconnected = true
                }
                try Self.checkDeadline(deadline, output: output, label: nil)
                try await Task.sleep(for: Self.clamp(backoff, to: deadline))
                backoff = min(backoff * 2, .seconds(5))
                continue
            }

            let now = ContinuousClock.now
            if bar != nil && !snapshot.finished {
                await details.read(target, snapshot: snapshot, store: store, at: now)
            }
            bar?.show(snapshot, inFlight: details.inFlight.files, stall: details.stall.reason, at: now)
            if snapshot.finished {
                bar?.finish(snapshot, at: now)
                return try await report(snapshot, target: target, store: store)
            }
            if let change = await liveness.check(target, store: store, at: now) {
                output.endLine()
                printError(change)
            }
            try Self.checkDeadline(deadline, output: output, label: snapshot)
            let pause = Self.clamp(period, to: deadline)
            if try await client.pause(pause, batch: wakingBatch, state: &waiting) == .startedPolling {
                output.endLine()
                printError(Self.pollingNotice(interval: period))
            }
        }
    }

    /// What ferry wait says, once, when the server refuses LISTEN (read-only: a hot standby).
    static func pollingNotice(interval: Duration) -> String {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        return "note: the server is a hot standby (LISTEN refused, SQLSTATE 25006): no notifications reach it, "
            + "reading the state every \(String(format: "%g", seconds)) s instead; it shows what the primary "
            + "finished after the replication lag"
    }

    /// Prints the outcome; throws the documented exit code unless every job succeeded.
    func report(_ snapshot: WaitSnapshot, target: Target, store: FerryStore) async throws {
        if json { return try await reportJSON(snapshot, target: target, store: store) }
        let moved = TablePrinter.bytes(snapshot.bytesTransferred)
        // Jobs that found their destination up to date moved nothing: say so rather than count their bytes as moved.
        let unchanged = snapshot.unchanged == 0
            ? ""
            : "; \(snapshot.succeeded - snapshot.unchanged) transferred, \(snapshot.unchanged) unchanged (\(TablePrinter.bytes(snapshot.unchangedBytes)) already there)"
        switch target {
        case .batch(let name):
            // The counts are of the jobs still in PostgreSQL: a partly archived batch says what else it had.
            let archived = snapshot.archived.summary(bytes: TablePrinter.bytes).map { "; \($0)" } ?? ""
            if snapshot.unsuccessful == 0 {
                print("\(snapshot.label): all \(snapshot.jobs) job(s) succeeded (\(moved) moved\(unchanged))\(archived)")
                return
            }
            print("\(snapshot.label): \(snapshot.succeeded) of \(snapshot.jobs) job(s) succeeded, \(snapshot.unsuccessfulCounts)\(unchanged)\(archived)")
            printError("error: \(snapshot.unsuccessful) job(s) of \(snapshot.label) did not succeed:")
            let listed = try await store.reads.unsuccessfulJobs(inBatch: name, limit: Self.listedFailures)
            for row in listed {
                printError("  \(row.jobID.uuidString.lowercased()) \(row.state): \(Self.oneLine(row.lastError))")
            }
            if snapshot.unsuccessful > Int64(listed.count) {
                printError("  … and \(snapshot.unsuccessful - Int64(listed.count)) more (ferry status --batch \(name))")
            }
        case .job(let id):
            let state = snapshot.succeeded == 1 ? "succeeded" : snapshot.failed == 1 ? "failed"
                : snapshot.discarded == 1 ? "discarded" : "cancelled"
            print("\(snapshot.label) \(state)" + (snapshot.succeeded == 1 ? " (\(moved))" : ""))
            if snapshot.succeeded == 1 { return }
            let lastError = try await store.reads.jobStatus(.job(id)).first?.lastError
            printError("error: \(snapshot.label) \(state): \(Self.oneLine(lastError))")
        }
        throw ExitCode(ExitStatus.negative)
    }

    /// `--json`: one object on stdout; the exit code is the same as without it.
    func reportJSON(_ snapshot: WaitSnapshot, target: Target, store: FerryStore) async throws {
        var object: [String: JSONValue] = [
            "jobs": .int(snapshot.jobs), "succeeded": .int(snapshot.succeeded), "failed": .int(snapshot.failed),
            "cancelled": .int(snapshot.cancelled), "discarded": .int(snapshot.discarded), "bytes_done": .int(snapshot.bytesDone),
            "unchanged": .int(snapshot.unchanged), "unchanged_bytes": .int(snapshot.unchangedBytes),
            "bytes_transferred": .int(snapshot.bytesTransferred),
            "bytes_total": snapshot.bytesTotal.map(JSONValue.int) ?? .null,
            "outcome": .string(snapshot.unsuccessful == 0 ? "succeeded" : "unsuccessful"),
        ]
        if snapshot.archived.jobs > 0 { object["archived"] = snapshot.archived.json }
        switch target {
        case .batch(let name):
            object["batch"] = .string(name)
            if snapshot.unsuccessful > 0 {
                object["failures"] = .array(try await store.reads.unsuccessfulJobs(inBatch: name, limit: Self.listedFailures).map {
                    .object(["job_id": .string($0.jobID.uuidString.lowercased()), "state": .string($0.state), "last_error": $0.lastError.map(JSONValue.string) ?? .null])
                })
            }
        case .job(let id):
            object["job_id"] = .string(id.uuidString.lowercased())
            if snapshot.unsuccessful > 0 {
                let row = try await store.reads.jobStatus(.job(id)).first
                object["failures"] = .array([.object([
                    "job_id": .string(id.uuidString.lowercased()), "state": .string(row?.state ?? "failed"),
                    "last_error": row?.lastError.map(JSONValue.string) ?? .null,
                ])])
            }
        }
        print(JSONValue.object(object).jsonText)
        if snapshot.unsuccessful > 0 { throw ExitCode(ExitStatus.negative) }
    }

    static func checkDeadline(_ deadline: ContinuousClock.Instant?, output: TerminalOutput, label snapshot: WaitSnapshot?) throws {
        guard let deadline, ContinuousClock.now >= deadline else { return }
        output.endLine()
        if let snapshot {
            printError("error: timed out: \(snapshot.label) still has \(snapshot.jobs - snapshot.jobsFinished) of \(snapshot.jobs) job(s) unfinished")
        } else {
            printError("error: timed out while PostgreSQL was unreachable")
        }
        throw ExitCode(ExitStatus.timedOut)
    }

    /// `pause`, shortened so it ends at the deadline (but never zero: the deadline check comes after it).
    static func clamp(_ pause: Duration, to deadline: ContinuousClock.Instant?) -> Duration {
        guard let deadline else { return pause }
        return max(.milliseconds(1), min(pause, deadline - ContinuousClock.now))
    }

    static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// A last error as one short line: handler messages are meant to be shown, but may be long or multi-line.
    static func oneLine(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "(no error recorded)" }
        let flat = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        return flat.count > 200 ? String(flat.prefix(199)) + "…" : flat
    }
}
