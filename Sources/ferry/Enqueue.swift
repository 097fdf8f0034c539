import ArgumentParser
import FerryClient
import FerryCore
import FerryProviders
import FerryStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

struct Enqueue: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add jobs to the queue: uploads, fetches, copies, syncs, or a JSON Lines file of them (all or nothing).",
        usage: """
            ferry enqueue upload <file> ... --to <dest> [options]
            ferry enqueue upload <dir> ... --recursive --to <dest>/ [filters] [options]
            ferry enqueue fetch <source> ... --to <local-path> [options]
            ferry enqueue copy <source> ... --to <dest> [--recursive] [filters] [options]
            ferry enqueue sync <dir|source/> --to <dest>/ [--max-delete N] [filters] [options]
            ferry enqueue --from <file|-> [--to <dest>] [options]
            ferry enqueue upload|fetch --from <file|-> --format lines --to <dest> [options]
            """,
        discussion: """
            upload FILE... or DIR --recursive: local files to dropbox:ACCOUNT:/path, s3:ACCOUNT:bucket/key, \
            gdrive:, onedrive: or an absolute local folder. fetch SOURCE...: a URL or a provider's file or folder to \
            an absolute local path. copy: from one provider to another, no local copy. sync: a copy, then \
            deletions. --from FILE: JSON Lines, one job a line (or --format lines), all or nothing. A --to ending \
            in / means "into this folder, keep the name". --dry-run checks everything and writes nothing.

            Every form with its rules, the filters, the --from fields, local roots and --json fields: \
            docs/enqueue.md.

            Output: one job id per line, in input order; --json: one JSON object per job per line, with the field \
            names of --dry-run --json. A job whose key (--key, or "key") exists already is not enqueued again: its \
            id is printed, exit 0.

            Provider options (--option NAME=VALUE, or "options": {"NAME": VALUE} in a line); an option the job's \
            provider does not take is refused:
            \(ProviderRegistry.standard.optionsHelp)

            Examples:
              ferry enqueue upload IMG_0001.jpg IMG_0002.jpg \\
                  --to dropbox:photos:/Camera/2026/ --batch camera
              ferry enqueue upload report.pdf --to dropbox:work:/Reports/latest.pdf \\
                  --key report-2026-11
              ferry enqueue upload backup.tar --to dropbox:work:/Backups/ \\
                  --option mode=overwrite
              ferry enqueue upload big.mov --to file:///mnt/nas/videos/ --priority 10 \\
                  --run-at +2h
              ferry enqueue upload ~/Photos --recursive --to dropbox:me:/Photos/ \\
                  --exclude '*.tmp' --exclude '/cache/' --max-size 2G
              ferry enqueue upload site/ --recursive --to s3:web:bucket/site/ \\
                  --dry-run --json
              ferry enqueue fetch https://example.com/photos/1.jpg --to /srv/photos/ \\
                  --sha256 9f86d0…
              ferry enqueue fetch dropbox:photos:/Camera --to /srv/camera/ --recursive
              ferry enqueue fetch dropbox:photos:/Camera --to /srv/thumbs/ \\
                  --thumbnail w256h256
              ferry enqueue fetch flickr:12345678@N00 --to /srv/flickr/ --size b --max 500
              ferry enqueue fetch https://example.com/a.jpg https://example.com/b.jpg \\
                  --to /srv/photos/
              ferry enqueue copy dropbox:photos:/Camera --recursive \\
                  --to s3:archive:bucket/camera/
              ferry enqueue copy s3:archive:bucket/2025/report.pdf \\
                  --to dropbox:work:/Reports/
              ferry enqueue --from jobs.jsonl
              ferry enqueue --from jobs.jsonl --wait-for-database 2m
              ferry enqueue fetch --from urls.txt --format lines --to /srv/photos/ \\
                  --batch feed
              find ~/Photos -name '*.jpg' \\
                | ferry enqueue upload --from - --format lines --to dropbox:me:/Photos/
              find ~/Photos -name '*.jpg' \\
                | jq -Rc '{kind:"upload",source:.,to:"dropbox:me:/Photos/",key:.}' \\
                | ferry enqueue --from - --batch photos
            """
    )

    @Argument(help: ArgumentHelp("upload FILE... | fetch SOURCE... | copy SOURCE...", valueName: "kind> <arguments"), completion: .file())
    var arguments: [String] = []

    @Option(name: .customLong("from"), help: ArgumentHelp("JSON Lines file of jobs, or - for stdin.", valueName: "file"),
        completion: .file())
    var from: String?

    @Option(help: ArgumentHelp("What --from holds: jsonl (one job object per line) or lines (one source per line).", valueName: "jsonl|lines"))
    var format: InputFormat = .jsonl

    @Option(help: ArgumentHelp("Destination (upload: dropbox:ACCOUNT:/path, s3:ACCOUNT:bucket/key or a local directory; fetch: a local path; copy: dropbox:ACCOUNT:/path or s3:ACCOUNT:bucket/key).", valueName: "dest"),
        completion: .directory)
    var to: String?

    @Option(help: ArgumentHelp("Idempotency key for a single job: enqueuing it again returns the same job.", valueName: "key"))
    var key: String?

    @Option(help: ArgumentHelp(
        "With --from: the number of jobs the input must hold; fewer or more (a producer that died mid-stream) enqueues none.",
        valueName: "n"))
    var expect: Int?

    @Option(
        name: .customLong("max-delete"),
        help: ArgumentHelp("sync: delete at most N files of the destination in one run; beyond that the run deletes nothing and says so (default: no bound, but a source that lists no file deletes nothing).", valueName: "n"))
    var maxDelete: Int64?

    @OptionGroup(title: "Provider options") var providerOptions: ProviderOptionFlags
    @OptionGroup(title: "Trees, filters and dry run") var tree: TreeFlags
    @OptionGroup var options: JobOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var database: DatabaseWaitOptions

    func run() async throws {
        try await runReporting {
            try options.validateTraceParent()
            if let expect {
                guard from != nil else {
                    throw CLIUsageError(message: "--expect counts the jobs of --from; give --from FILE too (or leave --expect out)")
                }
                guard expect >= 0 else {
                    throw ValidationIssue(field: "--expect", problem: "must be 0 or more", fix: "give the number of jobs the input holds")
                }
            }
            if let from {
                guard key == nil else {
                    throw CLIUsageError(message: "--key names one job; with --from give each line its own \"key\"")
                }
                var plainKind: JobKind?
                switch format {
                case .jsonl:
                    guard arguments.isEmpty else {
                        throw CLIUsageError(message: "--from reads jobs from a file; do not also give upload/fetch arguments (or add --format lines for a list of sources)")
                    }
                case .lines:
                    guard arguments.count == 1, let kind = JobKind(rawValue: arguments[0]) else {
                        throw CLIUsageError(message: "--format lines needs the kind and nothing else: ferry enqueue upload|fetch --from FILE --format lines --to DEST/")
                    }
                    guard let to, to.hasSuffix("/") else {
                        throw CLIUsageError(message: "--format lines needs a folder destination: --to ending with /")
                    }
                    plainKind = kind
                }
                if tree.filters && plainKind != .upload {
                    throw CLIUsageError(message: "filters (--include, --exclude, --filter-from, --min-size, --max-size, --max-age, --min-age) choose files to upload: use them with upload DIR --recursive or upload --from FILE --format lines")
                }
                try await enqueueLines(from: from, plainKind: plainKind)
                return
            }
            let jobs = try commandLineJobs()
            try await enqueueStream(replayable: true, defaults: options.defaults) { .operands(jobs) }
            if tree.dryRun && arguments.first == "sync" { try await previewSync() }
        }
    }

    /// The command line's kind, sources, destination and provider options, checked for usage mistakes.
    private func commandLine() throws -> (kind: JobKind, operands: [String], to: String, options: [String: OptionValue]) {
        guard format == .jsonl else {
            throw CLIUsageError(message: "--format describes the --from file; give --from FILE too")
        }
        guard let kindText = arguments.first else {
            throw CLIUsageError(message: "say what to enqueue: ferry enqueue upload FILE... --to DEST, ferry enqueue fetch SOURCE --to PATH, ferry enqueue copy SOURCE --to DEST, or ferry enqueue --from FILE")
        }
        if kindText == "sync" { return try syncCommandLine() }
        guard let kind = JobKind(rawValue: kindText) else {
            throw CLIUsageError(message: "unknown job kind '\(kindText)': use upload, fetch, copy or sync")
        }
        var operands = Array(arguments.dropFirst())
        // What to move comes first: `ferry enqueue upload` alone lacks the files before it lacks --to.
        guard !operands.isEmpty else {
            throw CLIUsageError(message: kind == .upload ? "name at least one FILE to upload" : "name the SOURCE to \(kind.rawValue)")
        }
        guard let to else {
            throw CLIUsageError(message: "missing --to: say where the \(kind == .upload ? "files go" : kind == .copy ? "copy goes" : "download goes")")
        }
        if kind == .copy && providerOptions.recursive {
            // --recursive says the sources are folders: written as folders are, with a trailing /.
            guard to.hasSuffix("/") else {
                throw CLIUsageError(message: "--recursive copies a folder into a folder: end --to with /")
            }
            operands = operands.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        }
        if operands.count > 1 && !to.hasSuffix("/") {
            throw CLIUsageError(message: "several \(kind == .upload ? "files" : "sources") need a folder destination: end --to with /")
        }
        if operands.count > 1 && key != nil {
            throw CLIUsageError(message: "--key names one job; with several \(kind == .upload ? "files" : "sources") use --from with a key per line")
        }
        let checksum = providerOptions.sha256 != nil || providerOptions.option.contains(where: { $0.hasPrefix("sha256=") })
        if operands.count > 1 && checksum {
            throw CLIUsageError(message: "--sha256 names one file's checksum; with several sources use --from with a \"sha256\" per line")
        }
        // For uploads --recursive walks the folders named; for fetches it is the provider option.
        if kind == .upload && providerOptions.recursive {
            guard to.hasSuffix("/") else {
                throw CLIUsageError(message: "--recursive keeps each file's path below DIR under DEST: end --to with / (a folder)")
            }
            if key != nil || checksum {
                throw CLIUsageError(message: "\(key != nil ? "--key" : "--sha256") names one file; a folder holds many (use --from with one per line)")
            }
        }
        var given = try providerOptions.options(for: kind)
        // A folder or prefix fetch or copy applies the filters to what it lists (the job carries them).
        if kind != .upload && tree.filters {
            guard given[ListingFilter.option.name] == nil else {
                throw CLIUsageError(message: "the filter flags and --option filter=… say the same thing; give the flags")
            }
            given[ListingFilter.option.name] = .commandLine(try tree.fileFilter(now: Date()).json.jsonText)
        }
        return (kind, operands, to, given)
    }

    /// The jobs named on the command line (`upload FILE… | fetch SOURCE…` with `--to` and the options), checked
    /// for usage mistakes. `ferry schedule add … -- fetch …` parses its job template with this too.
    func commandLineRequests() throws -> [JobRequest] {
        let (kind, operands, to, given) = try commandLine()
        return operands.map { operand in
            JobRequest(
                kind: kind, source: operand, to: to, batch: options.batch, queue: options.queue,
                priority: options.priority, runAt: options.runAt, maxAttempts: options.maxAttempts,
                idempotencyKey: key, options: given, traceparent: options.traceparent)
        }
    }

    /// The jobs named on the command line for the streaming enqueue: folders are walked there, file by file.
    func commandLineJobs() throws -> EnqueueOperands {
        let (kind, operands, to, given) = try commandLine()
        let options = self.options
        let key = self.key
        // A sync's folder is walked by a worker (one job), not here.
        let walks = providerOptions.recursive && arguments.first != "sync"
        return EnqueueOperands(kind: kind, operands: operands, to: to, recursive: walks) { source, to in
            JobRequest(
                kind: kind, source: source, to: to, batch: options.batch, queue: options.queue,
                priority: options.priority, runAt: options.runAt, maxAttempts: options.maxAttempts,
                idempotencyKey: key, options: given, traceparent: options.traceparent)
        }
    }

    /// Streams the lines of `--from` through validation into one transaction (see `enqueueStream`).
    func enqueueLines(from: String, plainKind: JobKind?) async throws {
        var defaults = options.defaults
        defaults.to = to
        if providerOptions.sha256 != nil || providerOptions.option.contains(where: { $0.hasPrefix("sha256=") }) {
            throw CLIUsageError(message: "--sha256 names one file's checksum; with --from give each line its own \"sha256\"")
        }
        defaults.options = try providerOptions.options()
        // A file is read again from its start by a retry (--wait-for-database); standard input cannot be.
        try await enqueueStream(replayable: from != "-", defaults: defaults) {
            guard from != "-" else { return .lines(descriptor: STDIN_FILENO, owns: false, plainKind: plainKind) }
            let descriptor = open(from, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ValidationIssue(field: "--from", problem: "cannot read \(from) (\(String(cString: strerror(errno))))", fix: "check the path and permissions")
            }
            return .lines(descriptor: descriptor, owns: true, plainKind: plainKind)
        }
    }

    /// Streams jobs through `FerryClient.enqueueStream` into one transaction: every job or none, in bounded memory.
    ///
    /// With `--wait-for-database`, PostgreSQL being away is waited for before the first chunk; a `replayable`
    /// input (`makeInput` opens it afresh) is also enqueued again from its start when the connection is lost on
    /// the way. Jobs without a key then get one of this invocation (`StreamedEnqueue.keyBase`): whatever an
    /// attempt lost at its commit had committed or not, the next one creates no duplicates.
    func enqueueStream(
        replayable: Bool, defaults: JobRequest.Defaults, _ makeInput: () throws -> EnqueueInput
    ) async throws {
        let wait = try database.resolved()
        let now = Date()
        let keyBase = wait.isOn && !tree.dryRun ? "ferry-cli:\(UUID().uuidString.lowercased())" : nil
        if replayable {
            try await wait.run {
                return try await connection.withStore(current: true) { store in
                    try await enqueueStream(try makeInput(), defaults: defaults, store: store, keyBase: keyBase, now: now)
                }
            }
        } else {
            let store = try await wait.run { try await connection.makeCurrentStore(poolSize: 1) }
            defer { store.client.close() }
            try await enqueueStream(try makeInput(), defaults: defaults, store: store, keyBase: keyBase, now: now)
        }
    }

    /// One attempt of `enqueueStream`, on `store`.
    func enqueueStream(
        _ input: EnqueueInput, defaults: JobRequest.Defaults, store: FerryStore, keyBase: String?, now: Date
    ) async throws {
        await ProducerLocalRoots.load(from: store.client)
        let report = try EnqueueReport(dryRun: tree.dryRun)
        let spool = try OutputSpool()
        let options = StreamedEnqueue(
            defaults: defaults, filter: try tree.fileFilter(now: now), followSymlinks: tree.followSymlinks,
            skipUnreadable: tree.skipUnreadable, keyBase: keyBase, now: now, expect: expect, dryRun: tree.dryRun,
            checkRequest: { [directory = FileManager.default.currentDirectoryPath] (request: JobRequest, line: Int?) throws(ValidationIssue) in
                try ProducerLocalRoots.checkAbsolute(request, line: line, currentDirectory: directory)
            },
            check: { (spec: JobSpec, line: Int?) throws(ValidationIssue) in try ProducerLocalRoots.check(spec, line: line) }, fates: report,
            maxIssues: EnqueueRunner.maxReportedIssues)
        let json = self.options.json
        var count = 0
        let client = FerryClient(store: store, providers: .standard)
        let result: StreamedEnqueueResult
        do {
            result = try await client.enqueueStream(input, options: options) { jobs in
                try Self.spool(jobs, into: spool, json: json, count: &count)
            }
        } catch let error as FerryClientError where error.code == .invalidRequests {
            if tree.dryRun { try report.printDryRun(json: json, collisions: [], issues: error.issues.count + error.more) }
            throw ValidationIssues(issues: error.issues, more: error.more)
        }
        if tree.dryRun {
            try report.printDryRun(json: json, collisions: result.collisions, issues: 0)
            if !result.collisions.isEmpty { throw ValidationIssues(issues: result.collisionIssues, more: 0) }
            return
        }
        report.summarizeFiltered()
        try spool.copyToStandardOutput()
    }

    /// Output of an enqueue: one id per line, or (`--json`) one object per line, as a dry run prints them.
    static func spool(_ jobs: [EnqueuedJob], into spool: OutputSpool, json: Bool, count: inout Int) throws {
        for job in jobs {
            if json {
                try spool.write(EnqueueRunner.jsonItem(job).jsonText + "\n")
            } else {
                try spool.write(job.id.uuidString.lowercased() + "\n")
            }
            count += 1
        }
    }
}

/// What every enqueue form shares: the output format and the limit on problems reported.
enum EnqueueRunner {
    static let maxReportedIssues = 20

    /// One enqueued job in `--json` output: a JSON line with the field names of a dry run's (`fate`, `source`,
    /// `destination`, `line`) and the job's `job_id`, `created` and `key`.
    static func jsonItem(_ job: EnqueuedJob) -> JSONValue {
        var object: [String: JSONValue] = [
            "fate": .string("enqueue"), "job_id": .string(job.id.uuidString.lowercased()), "created": .bool(job.created),
            "source": .string(job.source), "destination": .string(job.destination),
        ]
        if let line = job.line { object["line"] = .int(Int64(line)) }
        if let key = job.idempotencyKey { object["key"] = .string(key) }
        return .object(object)
    }
}
