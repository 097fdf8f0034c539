import Foundation

extension JobRequest {
    /// Checks every field and produces the job to enqueue, or the first problem found.
    ///
    /// - Parameters:
    ///   - currentDirectory: base for relative local paths.
    ///   - inspectFile: looks at an upload source (size, mtime, type, readability). Injected so the domain
    ///     stays free of I/O.
    ///   - providers: checks the remote side and the provider options (the registry of providers).
    public func validated(
        jobID: UUID, now: Date, currentDirectory: String,
        inspectFile: (String) -> Result<SourceFileFacts, SourceFileFacts.Problem>,
        providers: some JobEndpointResolver
    ) throws(ValidationIssue) -> JobSpec {
        var spec = try commonSpec(jobID: jobID, now: now)
        switch kind {
        case .upload where Self.isTree(options):
            try resolveTreeUpload(into: &spec, currentDirectory: currentDirectory, inspectFile: inspectFile, providers: providers)
        case .upload:
            try resolveUpload(into: &spec, currentDirectory: currentDirectory, inspectFile: inspectFile, providers: providers)
        case .fetch:
            try resolveFetch(into: &spec, currentDirectory: currentDirectory, providers: providers)
        case .copy:
            try resolveCopy(into: &spec, providers: providers)
        }
        return spec
    }

    private func issue(_ field: String, _ problem: String, _ fix: String) -> ValidationIssue {
        ValidationIssue(line: line, field: field, problem: problem, fix: fix)
    }

    /// The fields every kind shares (queue, batch, priority, attempts, time, key, metadata, trace), checked, as the
    /// spec the kind's own step completes.
    private func commonSpec(jobID: UUID, now: Date) throws(ValidationIssue) -> JobSpec {
        let queue = self.queue ?? JobLimits.defaultQueue
        guard JobLimits.isValidQueueName(queue) else {
            throw issue("queue", "queue names are 1-63 lowercase letters, digits, _ . - starting with a letter or digit", "use for example --queue photos")
        }
        if let batch {
            guard !batch.isEmpty, batch.utf8.count <= JobLimits.maxBatchNameBytes else {
                throw issue("batch", "batch names are 1-\(JobLimits.maxBatchNameBytes) bytes", "shorten or set the batch name")
            }
            guard !batch.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw issue("batch", "batch name contains control characters", "use printable characters")
            }
        }
        let priority = self.priority ?? JobLimits.defaultPriority
        guard JobLimits.priorityRange.contains(priority) else {
            throw issue("priority", "must be from \(JobLimits.priorityRange.lowerBound) to \(JobLimits.priorityRange.upperBound) (higher runs first)", "pick a priority in range")
        }
        let maxAttempts = self.maxAttempts ?? JobLimits.defaultMaxAttempts
        guard JobLimits.maxAttemptsRange.contains(maxAttempts) else {
            throw issue("max_attempts", "must be from \(JobLimits.maxAttemptsRange.lowerBound) to \(JobLimits.maxAttemptsRange.upperBound)", "pick a number of attempts in range")
        }
        let runAt = try checkedRunAt(now: now)
        try checkKeyAndMetadata()
        var spec = JobSpec(
            jobID: jobID, kind: kind, source: source, destination: to, account: nil, queue: queue, batch: batch,
            priority: priority, maxAttempts: maxAttempts, runAt: runAt, idempotencyKey: idempotencyKey,
            metadata: metadata, bytesTotal: nil, details: [:])
        spec.traceparent = try checkedTraceParent()
        return spec
    }

    /// `run_at` as a time: ISO 8601, `now` or a delay, at most a year ahead.
    private func checkedRunAt(now: Date) throws(ValidationIssue) -> Date? {
        guard let text = self.runAt else { return nil }
        guard let date = ScheduleTime.parse(text, now: now) else {
            throw issue("run_at", "not a time", "write an ISO 8601 time with a zone (2026-11-21T18:00:00Z), now, or a delay like +15m")
        }
        guard date.timeIntervalSince(now) <= JobLimits.maxScheduleAheadSeconds else {
            throw issue("run_at", "more than a year ahead", "schedule within 366 days")
        }
        return date
    }

    private func checkKeyAndMetadata() throws(ValidationIssue) {
        if let key = idempotencyKey {
            guard !key.isEmpty, key.utf8.count <= JobLimits.maxKeyBytes else {
                throw issue("key", "idempotency keys are 1-\(JobLimits.maxKeyBytes) bytes", "use a shorter key (for example a hash)")
            }
            guard !key.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw issue("key", "idempotency key contains control characters", "use printable characters")
            }
        }
        if let metadata, metadata.jsonText.utf8.count > JobLimits.maxMetadataBytes {
            throw issue("metadata", "larger than \(JobLimits.maxMetadataBytes / 1024) KiB", "keep metadata small; store large data elsewhere")
        }
    }

    private func checkedTraceParent() throws(ValidationIssue) -> TraceParent? {
        guard let text = traceparent else { return nil }
        guard let parsed = TraceParent(text) else {
            throw issue(line == nil ? "--traceparent" : "traceparent", "not a W3C traceparent", "write \(TraceParent.format), for example 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        }
        return parsed
    }

    /// A folder a worker walks when the job runs: no file facts now; the destination is a folder.
    private func resolveTreeUpload(
        into spec: inout JobSpec, currentDirectory: String,
        inspectFile: (String) -> Result<SourceFileFacts, SourceFileFacts.Problem>, providers: some JobEndpointResolver
    ) throws(ValidationIssue) {
        let path = Self.absolute(source, base: currentDirectory)
        try EndpointSyntax.validateLocalPath(path, field: "source", line: line)
        guard case .failure(.notRegularFile("directory")) = inspectFile(path) else {
            throw issue("source", "\(path) is not a folder", "a tree upload (option tree) uploads the files below a folder: name the folder")
        }
        guard to.hasSuffix("/") else {
            throw issue("to", "a tree upload goes into a folder", "end the destination with / (for example dropbox:me:/Backup/)")
        }
        if let inside = Self.treeIntoItself(root: path, destination: to, base: currentDirectory, line: line) { throw inside }
        let remote = EndpointSyntax.scheme(of: to) == nil
            ? "file://" + EndpointSyntax.percentEncodePath(Self.absolute(to, base: currentDirectory)) : to
        // Resolved as the upload of one file into that folder would be (account, options); the job's
        // destination is the folder itself.
        let probe = "ferry-tree-probe"
        var resolved = try providers.resolve(kind: .upload, remote: remote, local: path + "/" + probe, options: options, jobID: spec.jobID, line: line)
        guard resolved.destination.hasSuffix(probe) else {
            throw issue("to", "the destination does not name a folder", "end the destination with /")
        }
        resolved.destination = String(resolved.destination.dropLast(probe.count))
        resolved.source = path.hasSuffix("/") || path == "/" ? path : path + "/"
        spec.apply(resolved)
    }

    private func resolveUpload(
        into spec: inout JobSpec, currentDirectory: String,
        inspectFile: (String) -> Result<SourceFileFacts, SourceFileFacts.Problem>, providers: some JobEndpointResolver
    ) throws(ValidationIssue) {
        let path = Self.absolute(source, base: currentDirectory)
        try EndpointSyntax.validateLocalPath(path, field: "source", line: line)
        let facts = try sourceFacts(path, inspectFile: inspectFile)
        // A plain path (no scheme) is a local directory, as for fetches: the same as file:///abs/path/.
        let remote = !to.isEmpty && EndpointSyntax.scheme(of: to) == nil
            ? "file://" + EndpointSyntax.percentEncodePath(Self.absolute(to, base: currentDirectory)) : to
        let resolved = try providers.resolve(kind: .upload, remote: remote, local: path, options: options, jobID: spec.jobID, line: line)
        spec.apply(resolved)
        spec.bytesTotal = facts.size
        // The source facts are generic (every upload reads a local file); the provider's details sit beside them.
        spec.details.merge(facts.details) { _, generic in generic }
    }

    /// An upload source's facts, or the problem with it named for the producer.
    private func sourceFacts(
        _ path: String, inspectFile: (String) -> Result<SourceFileFacts, SourceFileFacts.Problem>
    ) throws(ValidationIssue) -> SourceFileFacts {
        switch inspectFile(path) {
        case .success(let value): return value
        case .failure(.missing):
            throw issue("source", "no such file: \(path)", "check the path; the file must exist when it is enqueued")
        case .failure(.notRegularFile("directory")):
            throw issue("source", "\(path) is a directory, not a regular file", "upload a folder's files, keeping their folders, with ferry enqueue upload DIR --recursive --to DEST/")
        case .failure(.notRegularFile(let kind)):
            throw issue("source", "\(path) is a \(kind), not a regular file", "upload regular files")
        case .failure(.symlinkLoop):
            throw issue("source", "\(path) is a symbolic link loop (too many levels of symbolic links)", "point the link at a real file, or upload the file itself")
        case .failure(.permissionDenied), .failure(.unreadable):
            throw issue("source", "\(path) cannot be read (permission denied)", "make the file readable by the user that runs ferry")
        }
    }

    private func resolveFetch(into spec: inout JobSpec, currentDirectory: String, providers: some JobEndpointResolver) throws(ValidationIssue) {
        // An empty target (an unset $OUTDIR in a script) would mean the working directory: refused, as for uploads;
        // so is a blank one (" "), which would write a file named with spaces there.
        guard !to.isEmpty else {
            throw issue("to", "the local target is empty", "give the folder or file to fetch into, for example --to /srv/photos/")
        }
        guard to.contains(where: { !$0.isWhitespace }) else {
            throw issue("to", "the local target is blank (only spaces)", "give the folder or file to fetch into, for example --to /srv/photos/")
        }
        let target = try Self.fetchTarget(to, base: currentDirectory, line: line)
        try EndpointSyntax.validateLocalPath(target, field: "to", line: line)
        let resolved = try providers.resolve(kind: .fetch, remote: source, local: target, options: options, jobID: spec.jobID, line: line)
        spec.apply(resolved)
    }

    private func resolveCopy(into spec: inout JobSpec, providers: some JobEndpointResolver) throws(ValidationIssue) {
        guard !to.isEmpty else {
            throw issue("to", "the destination is empty", "give where the copy goes, for example --to s3:archive:bucket/photos/")
        }
        let resolved = try providers.resolveCopy(source: source, destination: to, options: options, jobID: spec.jobID, line: line)
        spec.apply(resolved)
        spec.bytesTotal = resolved.details["from"]?["size"]?.intValue
    }

    /// A fetch's local target as an absolute path: a path (relative to `base`), or a `file:///abs/path` URL (the
    /// form uploads take for local folders), decoded; `file:` with a host or a relative path is refused.
    static func fetchTarget(_ to: String, base: String, line: Int?) throws(ValidationIssue) -> String {
        guard EndpointSyntax.scheme(of: to) == "file" else { return absolute(to, base: base) }
        let fix = "write file:///absolute/dir/ (three slashes), or the path itself: --to /srv/photos/"
        guard to.utf8.count > 7, to.utf8.dropFirst(5).starts(with: "///".utf8) else {
            throw ValidationIssue(line: line, field: "to", problem: "a file URL needs an empty host and an absolute path", fix: fix)
        }
        guard let path = EndpointSyntax.percentDecode(String(to.dropFirst("file://".count))) else {
            throw ValidationIssue(line: line, field: "to", problem: "the file URL has an invalid %-escape", fix: "escape bytes as %XX; \(fix)")
        }
        return path
    }

    /// Whether the options ask for a tree upload (`tree`: true, or `--option tree` / `tree=true` on the command line).
    static func isTree(_ options: [String: OptionValue]) -> Bool {
        switch options["tree"] {
        case .json(.bool(true))?, .commandLine("")?, .commandLine("true")?: true
        default: false
        }
    }

    /// Resolves a relative path against `base`, keeping a trailing slash (it means "into this folder"). A relative
    /// path is the producer's own view from its working directory, so its `..` are resolved here (`../a.jpg`); an
    /// absolute path is kept as written, and one with `..` is refused by validation.
    public static func absolute(_ path: String, base: String) -> String {
        if path.hasPrefix("/") || path.isEmpty { return path.isEmpty ? base + (base.hasSuffix("/") ? "" : "/") : path }
        let trimmedBase = base.hasSuffix("/") ? String(base.dropLast()) : base
        let joined = trimmedBase + "/" + path
        guard let normalized = SafePath.normalize(joined) else { return joined }
        let folder = path.hasSuffix("/") || path == "." || path == ".." || path.hasSuffix("/.") || path.hasSuffix("/..")
        return normalized + (folder && normalized != "/" ? "/" : "")
    }
}
