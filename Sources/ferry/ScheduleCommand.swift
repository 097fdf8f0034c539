import ArgumentParser
import FerryCore
import FerryProviders
import FerryStore
import FerryWorker
import Foundation

/// `ferry schedule add|list|show|run|pause|resume|remove`: jobs enqueued on a recurring tick by the workers.
struct ScheduleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schedule",
        abstract: "Enqueue a fetch, a folder upload or a copy on a recurring tick: every interval, or on a cron expression.",
        discussion: """
            Workers fire due schedules: each tick enqueues exactly one job (idempotency key schedule:NAME:TICK) \
            however many workers run. When no worker ran for several ticks, the next one to look enqueues one job \
            for the latest tick and records the skipped ones as missed. A tick that falls while the previous run is \
            still going enqueues nothing unless the schedule was added with --overlap allow. History: \
            ferry.schedule_runs (one row per fired tick, job_id joins ferry.job_status); state: \
            ferry.schedule_status.

            Examples:
              ferry schedule add flickr-hourly --every 1h \\
                  -- fetch flickr:12345678@N00 --to /srv/flickr/
              ferry schedule add camera --cron "30 6 * * mon-fri" --timezone Europe/Paris \\
                  -- fetch dropbox:photos:/Camera --to /srv/camera/ --recursive
              ferry schedule add nightly --cron "0 2 * * *" \\
                  -- upload /srv/photos --recursive --to dropbox:photos:/Backup/
              ferry schedule add offsite --every 1d \\
                  -- copy dropbox:photos:/Camera --recursive --to s3:archive:bucket/camera/
              ferry schedule list
              ferry schedule show camera --json
              ferry schedule run camera --no-wait
              ferry schedule pause camera
              ferry schedule remove camera
            """,
        subcommands: [Add.self, List.self, Show.self, Run.self, Pause.self, Resume.self, Remove.self])

    struct Add: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a schedule (or replace one with --replace).",
            usage: "ferry schedule add <name> (--every <interval> | --cron <expr> [--timezone <zone>]) [--overlap skip|allow] [--replace] -- fetch|upload|copy <source> --to <dest> [enqueue options]",
            discussion: """
                --every: 15m, 1h, 1d, 90s or a sum such as 1h30m (at least 1m); ticks fall on whole multiples of \
                the interval since 1970-01-01T00:00Z (1h ticks on the hour, UTC).

                --cron: minute hour day-of-month month day-of-week, with lists (1,15), ranges (1-5), steps (*/15), \
                names (jan, mon-fri) and @hourly, @daily, @weekly, @monthly, @yearly; read on the wall clock of \
                --timezone (an IANA name such as Europe/Paris; default UTC). A tick in an hour skipped by a \
                daylight-saving change fires once when the clock resumes; a repeated hour fires once.

                --overlap: skip (the default) enqueues nothing for a tick while the previous tick's run is still \
                going (its job, or any job of its batch, queued or running; the tick is recorded as skipped in \
                ferry.schedule_runs); allow enqueues every tick's job whatever the last one is doing.

                After --: the job, as for ferry enqueue: a fetch, an upload of a folder (upload DIR --recursive: \
                each tick walks it and sends only new and changed files) or a copy (one source; --key and \
                --run-at are the schedule's). \
                It is checked now as enqueue checks it: a bad template is refused and nothing is stored. Without \
                --batch, each tick's run is a batch of its own named by its key (schedule:NAME:TICK), so \
                ferry wait --batch and the dashboard follow it whole.
                """)

        @Argument(help: ArgumentHelp("Schedule name: 1-63 lowercase letters, digits, _ . -", valueName: "name"),
            completion: CompletionValues.schedule)
        var name: String

        @Option(parsing: .unconditional, help: ArgumentHelp("Interval between ticks: 15m, 1h, 1d, 90s, 1h30m (at least 1m).", valueName: "interval"))
        var every: String?

        @Option(help: ArgumentHelp("A 5-field cron expression, quoted: \"0 * * * *\".", valueName: "expr"))
        var cron: String?

        @Option(help: ArgumentHelp("IANA time zone the cron expression is read in. Default: UTC.", valueName: "zone"))
        var timezone: String?

        @Option(help: ArgumentHelp("While the previous tick's run is still going: skip this tick, or allow overlapping runs.", valueName: "skip|allow"),
            completion: CompletionValues.overlap)
        var overlap = "skip"

        @Flag(help: "Replace the definition of an existing schedule of that name (its history stays).")
        var replace = false

        @OptionGroup var common: CommandOptions

        @Argument(parsing: .postTerminator, help: ArgumentHelp("The job: fetch SOURCE --to PATH [options].", valueName: "job"),
            completion: .file())
        var job: [String] = []

        func run() async throws {
            try await runReporting {
                try ScheduleCommand.checkName(name)
                guard let overlap = ScheduleOverlap(rawValue: overlap) else {
                    throw ValidationIssue(
                        field: "--overlap", problem: "'\(overlap)' is not an overlap policy",
                        fix: "use --overlap skip (a tick waits for the previous run) or --overlap allow (runs may overlap)")
                }
                let recurrence = try recurrence()
                let request = try await template()
                let now = Date()
                // The template checked as the job of the first tick, with the schedule's key.
                var probe = request
                probe.idempotencyKey = ScheduleStore.scheduleKey(name, tick: recurrence.next(after: now) ?? now)
                var ids = UUIDv7Generator(random: SystemRandomNumberGenerator())
                let spec: JobSpec
                do throws(ValidationIssue) {
                    spec = try probe.validated(
                        jobID: ids.next(now: now), now: now, currentDirectory: "/",
                        // A scheduled tree's folder is on the workers' machines, checked by them at each tick.
                        inspectFile: { _ in .failure(.notRegularFile(kind: "directory")) }, providers: ProviderRegistry.standard)
                } catch {
                    throw ValidationIssue(
                        field: "job template: \(error.field)", problem: error.problem, fix: error.fix + "; nothing was stored")
                }
                return try await connection.withStore(current: true) { store in
                    let record = try await store.schedules.add(
                        name: name, recurrence: recurrence, template: request, probe: spec, overlap: overlap, replace: replace, now: now)
                    if json { return print(record.json.jsonText) }
                    print(TablePrinter.printable(
                        "\(record.changedAt == record.createdAt ? "added" : "replaced") \(name): \(ScheduleCommand.describe(record)); next tick \(ScheduleCommand.format(record.nextTick, zone: record.timezone))"))
                }
            }
        }

        func recurrence() throws -> ScheduleRecurrence {
            switch (every, cron) {
            case (nil, nil):
                throw CLIUsageError(message: "say when: --every 1h (an interval) or --cron \"0 * * * *\" (a cron expression)")
            case (.some, .some):
                throw CLIUsageError(message: "give --every or --cron, not both")
            case (.some(let text), nil):
                guard timezone == nil else {
                    throw CLIUsageError(message: "--timezone applies to --cron; --every ticks on multiples of the interval since 1970-01-01T00:00Z (for a local time of day use --cron \"0 6 * * *\" --timezone ZONE)")
                }
                guard let seconds = ScheduleRecurrence.parseInterval(text) else {
                    throw ValidationIssue(field: "--every", problem: "'\(text)' is not an interval", fix: "write 15m, 1h, 1d, 90s or a sum such as 1h30m (at least 1m)")
                }
                let minimum = ScheduleCommand.minimumInterval
                guard seconds >= minimum else {
                    throw ValidationIssue(
                        field: "--every", problem: "\(text) is shorter than the minimum of \(ScheduleRecurrence.formatInterval(minimum))",
                        fix: "use --every \(ScheduleRecurrence.formatInterval(minimum)) or longer")
                }
                guard seconds <= 366 * 86_400 else {
                    throw ValidationIssue(field: "--every", problem: "\(text) is longer than a year", fix: "use --cron for yearly ticks (@yearly)")
                }
                return .every(seconds: seconds)
            case (nil, .some(let text)):
                let expression = try CronExpression(text)
                let zoneName = timezone ?? "UTC"
                guard let zone = TimeZone(identifier: zoneName) else {
                    throw ValidationIssue(
                        field: "--timezone", problem: "'\(zoneName)' is not a time zone this machine knows",
                        fix: "use an IANA name such as Europe/Paris or America/New_York (see /usr/share/zoneinfo)")
                }
                let recurrence = ScheduleRecurrence.cron(expression, zone: zone)
                guard recurrence.next(after: Date()) != nil else {
                    throw ValidationIssue(field: "--cron", problem: "'\(text)' never matches a date", fix: "check the day-of-month and month fields")
                }
                return recurrence
            }
        }

        /// The job after `--`, parsed and checked by `ferry enqueue`'s own parser.
        func template() async throws -> JobRequest {
            guard !job.isEmpty else {
                throw CLIUsageError(message: "give the job after --: ferry schedule add \(name) --every 1h -- fetch SOURCE --to PATH")
            }
            let enqueue: Enqueue
            do {
                // The async parse: Enqueue's options complete names from the database (CompletionValues).
                enqueue = try await Enqueue.asyncParse(job)
            } catch {
                throw CLIUsageError(message: "job template after --: " + Enqueue.message(for: error))
            }
            guard enqueue.from == nil else {
                throw CLIUsageError(message: "job template after --: a schedule enqueues one job per tick; --from is not for schedules")
            }
            guard enqueue.key == nil, enqueue.options.runAt == nil else {
                throw CLIUsageError(message: "job template after --: --key and --run-at belong to the schedule (each tick's key is schedule:NAME:TICK); leave them out")
            }
            guard !enqueue.tree.dryRun, !enqueue.tree.followSymlinks, !enqueue.tree.skipUnreadable else {
                throw CLIUsageError(message: "job template after --: --dry-run and the symlink flags belong to ferry enqueue (a scheduled tree leaves links and unreadable files out, and says so); leave them out")
            }
            var requests = try enqueue.commandLineRequests()
            guard requests.count == 1 else {
                throw CLIUsageError(message: "job template after --: one source per schedule (a folder or photostream source fetches many files); add a schedule per source")
            }
            if enqueue.tree.filters {
                // Fetches and copies were given the filter by enqueue's parser (which refuses --option filter=… beside
                // the flags); an upload's is set here. Kept whole in the template (a --filter-from file's rules as
                // they are now), ages as spans counted back from each tick.
                if requests[0].kind == .upload, enqueue.arguments.first != "sync", requests[0].options[ListingFilter.option.name] != nil {
                    throw CLIUsageError(message: "the filter flags and --option filter=… say the same thing; give the flags")
                }
                let filter = try enqueue.tree.fileFilter(now: Date(), relativeAges: true)
                requests[0].options[ListingFilter.option.name] = .commandLine(filter.json.jsonText)
            }
            if requests[0].kind == .upload {
                // A folder, walked by a worker at each tick: new and changed files go up, unchanged ones cost nothing.
                guard enqueue.providerOptions.recursive || enqueue.arguments.first == "sync" else {
                    throw CLIUsageError(message: "job template after --: a scheduled upload sends a folder's files as they are at each tick: upload DIR --recursive --to DEST/ (a single file is checked when it is enqueued, so a recurring upload would send the same file)")
                }
                requests[0].options[TreeUpload.option.name] = .json(.bool(true))
            }
            return requests[0].resolvingLocalPaths(currentDirectory: FileManager.default.currentDirectoryPath)
        }
    }

    struct List: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(abstract: "Schedules: spec, zone, paused, next tick, last job's state.")

        @Flag(name: .customLong("removed"), help: "Include removed schedules.")
        var includeRemoved = false

        @OptionGroup var common: CommandOptions

        func run() async throws {
            try await runReporting {
                return try await connection.withStore { store in
                    let records = try await store.schedules.all(includeRemoved: includeRemoved)
                    if json { return print(JSONValue.array(records.map(\.json)).jsonText) }
                    print(TablePrinter.render(
                        headers: ["NAME", "SPEC", "TIMEZONE", "OVERLAP", "STATE", "NEXT TICK", "LAST JOB"],
                        rows: records.map {
                            [$0.name, $0.spec, $0.timezone, $0.overlap.rawValue, $0.removed ? "removed" : $0.paused ? "paused" : "active",
                             $0.removed || $0.paused ? "" : ScheduleCommand.format($0.nextTick, zone: $0.timezone),
                             ScheduleCommand.lastJob($0)]
                        }))
                }
            }
        }
    }

    struct Show: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(abstract: "A schedule: its definition, next ticks and recent history.")

        @Argument(help: ArgumentHelp("Schedule name.", valueName: "name"), completion: CompletionValues.schedule)
        var name: String

        @Option(help: ArgumentHelp("How many recent ticks to show.", valueName: "n"))
        var limit = 20

        @OptionGroup var common: CommandOptions

        func run() async throws {
            try await runReporting {
                guard (1...10_000).contains(limit) else {
                    throw ValidationIssue(field: "--limit", problem: "must be from 1 to 10000", fix: "pick a smaller number")
                }
                return try await connection.withStore { store in
                    let (record, runs) = try await store.schedules.named(name, runs: limit)
                    var upcoming = [Date]()
                    if !record.removed && !record.paused, var next = record.nextTick, let recurrence = record.recurrence {
                        upcoming.append(next)
                        while upcoming.count < 5, let following = recurrence.next(after: next) {
                            upcoming.append(following)
                            next = following
                        }
                    }
                    if json {
                        var object = record.json.objectValue ?? [:]
                        object["next_ticks"] = .array(upcoming.map { .string(ScheduleTime.iso8601($0)) })
                        object["runs"] = .array(runs.map(\.json))
                        return print(JSONValue.object(object).jsonText)
                    }
                    // A producer writes schedule events too: what they hold is shown, never obeyed, by the terminal.
                    print(TablePrinter.printable("schedule  \(record.name)\(record.removed ? " (removed)" : record.paused ? " (paused)" : "")"))
                    if let reason = record.pausedReason {
                        // Written by a worker (definition 352).
                        print(TablePrinter.printable("paused    \(reason)"))
                    }
                    print(TablePrinter.printable("when      \(ScheduleCommand.describe(record))"))
                    print("overlap   \(record.overlap == .skip ? "skip (a tick waits for the previous run)" : "allow (runs may overlap)")")
                    print(TablePrinter.printable("job       \(ScheduleCommand.describeTemplate(record.template))"))
                    print("next      " + (upcoming.isEmpty ? "-" : upcoming.map { ScheduleCommand.format($0, zone: record.timezone) }.joined(separator: "\n          ")))
                    print("")
                    if runs.isEmpty { return print("no tick fired yet") }
                    print(TablePrinter.render(
                        headers: ["TICK", "FIRED", "JOB", "STATE", "MISSED"],
                        rows: runs.map {
                            [ScheduleTime.iso8601($0.tickAt) + ($0.manual ? " (run now)" : ""), ScheduleTime.iso8601($0.firedAt),
                             $0.jobID?.uuidString.lowercased() ?? "-", ScheduleCommand.outcome($0),
                             $0.missed == 0 ? "" : "\($0.missed) since \(ScheduleTime.iso8601($0.firstMissed ?? $0.tickAt))"]
                        }))
                }
            }
        }
    }

    struct Pause: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(abstract: "Stop firing a schedule from its next tick.")

        @Argument(help: ArgumentHelp("Schedule name.", valueName: "name"), completion: CompletionValues.schedule)
        var name: String

        @OptionGroup var common: CommandOptions

        func run() async throws {
            try await ScheduleCommand.setPaused(name, paused: true, json: json, connection: connection)
        }
    }

    struct Resume: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fire a paused schedule again, from its next tick after now (ticks while paused are not caught up).")

        @Argument(help: ArgumentHelp("Schedule name.", valueName: "name"), completion: CompletionValues.schedule)
        var name: String

        @OptionGroup var common: CommandOptions

        func run() async throws {
            try await ScheduleCommand.setPaused(name, paused: false, json: json, connection: connection)
        }
    }

    struct Remove: AsyncParsableCommand, DatabaseCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a schedule; its history stays in ferry.schedule_runs.")

        @Argument(help: ArgumentHelp("Schedule name.", valueName: "name"), completion: CompletionValues.schedule)
        var name: String

        @OptionGroup var common: CommandOptions

        func run() async throws {
            try await runReporting {
                try ScheduleCommand.checkName(name)
                return try await connection.withStore(current: true) { store in
                    try await store.schedules.remove(name)
                    print(json ? JSONValue.object(["schedule": .string(name), "removed": .bool(true)]).jsonText : "removed \(name)")
                }
            }
        }
    }

    /// The shortest `--every`: 1 minute. `FERRY_SCHEDULE_MIN_INTERVAL` (seconds) lowers it for tests only.
    static var minimumInterval: Int64 {
        ProcessInfo.processInfo.environment["FERRY_SCHEDULE_MIN_INTERVAL"].flatMap(Int64.init).map { max(1, $0) } ?? 60
    }

    static func checkName(_ name: String) throws {
        guard JobLimits.isValidQueueName(name) else {
            throw ValidationIssue(
                field: "name", problem: "'\(name)' is not a schedule name", fix: "schedule names are 1-63 lowercase letters, digits, _ . - (starting with a letter or digit)")
        }
    }

    static func setPaused(_ name: String, paused: Bool, json: Bool, connection: ConnectionOptions) async throws {
        try await runReporting {
            try checkName(name)
            return try await connection.withStore(current: true) { store in
                let changed = try await store.schedules.setPaused(name, paused: paused, now: Date())
                if json {
                    print(JSONValue.object(["schedule": .string(name), "paused": .bool(paused), "changed": .bool(changed)]).jsonText)
                } else {
                    print(changed ? "\(paused ? "paused" : "resumed") \(name)" : "\(name) was already \(paused ? "paused" : "active")")
                }
            }
        }
    }

    static func describe(_ record: ScheduleRecord) -> String {
        record.cron == nil ? record.spec : "\(record.spec) (\(record.timezone))"
    }

    static func describeTemplate(_ template: JSONValue) -> String {
        guard let request = JobRequest(template: template) else { return template.jsonText }
        var text = "\(request.kind.rawValue) \(request.source) --to \(request.to)"
        if let queue = request.queue { text += " --queue \(queue)" }
        if let batch = request.batch { text += " --batch \(batch)" }
        for (name, value) in request.options.sorted(by: { $0.key < $1.key }) {
            if name == ListingFilter.option.name, case .commandLine(let given) = value, let json = try? JSONValue.parse(given),
                let filter = FileFilter(json: json) {
                text += " --filter \(filter.summary)"
                continue
            }
            switch value {
            case .commandLine(let string): text += " --option \(name)=\(string)"
            case .json(let json): text += " --option \(name)=\(json.stringValue ?? json.jsonText)"
            }
        }
        return text
    }

    /// A run's state: its job's, why it has no job, or the run still going it was skipped for.
    static func outcome(_ run: ScheduleRun) -> String {
        if let job = run.skippedFor { return "skipped: \(job.uuidString.lowercased()) still going" }
        if let error = run.error { return "error: \(error)" }
        return run.jobState ?? "archived"
    }

    static func lastJob(_ record: ScheduleRecord) -> String {
        guard let job = record.lastJobID else { return record.lastTick == nil ? "" : "error" }
        return "\(job.uuidString.lowercased()) \(record.lastJobState ?? "archived")"
    }

    /// UTC, and the wall time in the schedule's zone when that is not UTC.
    static func format(_ date: Date?, zone: String) -> String {
        guard let date else { return "-" }
        let utc = ScheduleTime.iso8601(date)
        guard zone != "UTC", let timeZone = TimeZone(identifier: zone) else { return utc }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = timeZone
        formatter.formatOptions = [.withInternetDateTime]
        return "\(utc) (\(formatter.string(from: date)) \(zone))"
    }
}
