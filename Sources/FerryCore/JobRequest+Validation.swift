import Foundation

extension JobRequest {
    /// Checks every field and produces the job to enqueue, or the first problem found.
    ///
    /// - Parameters:
    ///   - currentDirectory: base for relative local paths.
    ///   - inspectFile: looks at an upload source (size, mtime, type, readability). Injected so the domain
    ///     stays free of I/O.
    public func validated(
        jobID: UUID, now: Date, currentDirectory: String,
        inspectFile: (String) -> Result<SourceFileFacts, SourceFileFacts.Problem>
    ) throws(ValidationIssue) -> JobSpec {
        func issue(_ field: String, _ problem: String, _ fix: String) -> ValidationIssue {
            ValidationIssue(line: line, field: field, problem: problem, fix: fix)
        }
        func located(_ error: ValidationIssue) -> ValidationIssue {
            var error = error
            error.line = line
            return error
        }

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
        var runAt: Date?
        if let text = self.runAt {
            guard let date = ScheduleTime.parse(text, now: now) else {
                throw issue("run_at", "not a time", "write an ISO 8601 time with a zone (2026-11-21T18:00:00Z), now, or a delay like +15m")
            }
            guard date.timeIntervalSince(now) <= JobLimits.maxScheduleAheadSeconds else {
                throw issue("run_at", "more than a year ahead", "schedule within 366 days")
            }
            runAt = date
        }
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

        var spec = JobSpec(
            jobID: jobID, kind: kind, source: source, destination: to, account: nil, queue: queue, batch: batch,
            priority: priority, maxAttempts: maxAttempts, runAt: runAt, idempotencyKey: idempotencyKey,
            metadata: metadata, bytesTotal: nil, details: [:])

        switch kind {
        case .upload:
            let path = Self.absolute(source, base: currentDirectory)
            do {
                try TransferEndpoint.validateLocalPath(path, field: "source")
            } catch {
                throw located(error)
            }
            let facts: SourceFileFacts
            switch inspectFile(path) {
            case .success(let value): facts = value
            case .failure(.missing):
                throw issue("source", "no such file: \(path)", "check the path; the file must exist when it is enqueued")
            case .failure(.notRegularFile(let kind)):
                throw issue("source", "\(path) is a \(kind), not a regular file", "upload regular files (list a folder's files with find)")
            case .failure(.permissionDenied), .failure(.unreadable):
                throw issue("source", "\(path) cannot be read (permission denied)", "make the file readable by the user that runs ferry")
            }
            let endpoint: TransferEndpoint
            let isFolder: Bool
            do {
                (endpoint, isFolder) = try TransferEndpoint.parseDestination(to, field: "to")
            } catch {
                throw located(error)
            }
            let name = String(path.split(separator: "/").last ?? "")
            switch endpoint {
            case .dropbox(let account, let folder):
                let remote = isFolder ? folder + name : folder
                spec.destination = TransferEndpoint.dropbox(account: account, path: remote).text
                spec.account = account
            case .directory(let folder):
                spec.destination = TransferEndpoint.directory(path: isFolder ? folder + name : folder).text
            default:
                throw issue("to", "uploads go to dropbox:ACCOUNT:/path or file:///dir/", "change the destination")
            }
            spec.source = path
            spec.bytesTotal = facts.size
            spec.details = [
                "size": .int(facts.size),
                "mtime_ns": .int(facts.modifiedNanoseconds),
                "device": .int(Int64(bitPattern: facts.device)),
                "inode": .int(Int64(bitPattern: facts.inode)),
            ]
        case .fetch:
            let endpoint: TransferEndpoint
            do {
                endpoint = try TransferEndpoint.parseFetchSource(source, field: "source")
            } catch {
                throw located(error)
            }
            let target = Self.absolute(to, base: currentDirectory)
            do {
                try TransferEndpoint.validateLocalPath(target, field: "to")
            } catch {
                throw located(error)
            }
            spec.source = endpoint.text
            spec.account = endpoint.account
            spec.destination = target
            spec.details = try fetchDetails(for: endpoint, target: target, spec: &spec)
        }
        if kind == .upload && !fetch.isEmpty {
            throw issue("to", "sha256, recursive, thumbnail, size, max, account and page_size are fetch options", "remove them from upload jobs")
        }
        return spec
    }

    /// Checks the fetch options that fit `endpoint` and returns the job's handler details. Fetches that can fan
    /// out (Dropbox, Flickr) get a batch named after the job when none is given, so their children have one.
    func fetchDetails(for endpoint: TransferEndpoint, target: String, spec: inout JobSpec) throws(ValidationIssue) -> [String: JSONValue] {
        func issue(_ field: String, _ problem: String, _ fix: String) -> ValidationIssue {
            ValidationIssue(line: line, field: field, problem: problem, fix: fix)
        }
        func refuse(_ names: [(String, Bool)], for what: String) throws(ValidationIssue) {
            if let (name, _) = names.first(where: { $0.1 }) {
                throw issue(name, "not an option for \(what)", "remove it")
            }
        }
        var details = [String: JSONValue]()
        if let sha = fetch.sha256 {
            let lower = sha.lowercased()
            guard lower.utf8.count == 64, lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
                throw issue("sha256", "must be 64 hexadecimal digits", "give the file's SHA-256 as printed by sha256sum")
            }
            details["sha256"] = .string(lower)
        }
        switch endpoint {
        case .web(let url):
            try refuse(
                [("recursive", fetch.recursive != nil), ("thumbnail", fetch.thumbnail != nil), ("size", fetch.size != nil),
                 ("max", fetch.max != nil), ("account", fetch.account != nil), ("page_size", fetch.pageSize != nil)],
                for: "URL fetches")
            if target.hasSuffix("/") {
                guard let name = SafePath.fileName(fromURL: url) else {
                    throw issue("to", "the URL's path has no usable file name to keep", "give --to a full file path instead of a folder")
                }
                spec.destination = target + name
            }
            details["root"] = .string(SafePath.directory(of: spec.destination))
        case .dropbox:
            try refuse([("size", fetch.size != nil), ("max", fetch.max != nil), ("account", fetch.account != nil)], for: "Dropbox fetches")
            if let thumbnail = fetch.thumbnail {
                guard FetchOptions.thumbnailSizes.contains(thumbnail) else {
                    throw issue("thumbnail", "unknown thumbnail size '\(thumbnail)'", "use one of " + FetchOptions.thumbnailSizes.joined(separator: ", "))
                }
                if fetch.sha256 != nil {
                    throw issue("sha256", "a thumbnail has no fixed checksum", "drop --sha256 or --thumbnail")
                }
                details["thumbnail"] = .string(thumbnail)
            }
            if let pageSize = fetch.pageSize {
                guard (1...2000).contains(pageSize) else {
                    throw issue("page_size", "must be from 1 to 2000 (Dropbox's list_folder limit)", "pick a page size in range")
                }
                details["page_size"] = .int(pageSize)
            }
            if fetch.recursive == true { details["recursive"] = .bool(true) }
            details["root"] = .string(target.hasSuffix("/") ? target : SafePath.directory(of: target))
            if spec.batch == nil { spec.batch = spec.jobID.uuidString.lowercased() }
        case .flickr:
            try refuse(
                [("recursive", fetch.recursive != nil), ("thumbnail", fetch.thumbnail != nil), ("page_size", fetch.pageSize != nil),
                 ("sha256", fetch.sha256 != nil)],
                for: "Flickr fetches")
            if let size = fetch.size {
                guard FetchOptions.flickrSizes.contains(size) else {
                    throw issue("size", "unknown Flickr size suffix '\(size)'", "use one of " + FetchOptions.flickrSizes.joined(separator: ", "))
                }
                details["size"] = .string(size)
            }
            if let max = fetch.max {
                guard (1...1_000_000).contains(max) else {
                    throw issue("max", "must be from 1 to 1000000", "pick how many photos to fetch")
                }
                details["max"] = .int(max)
            }
            if let account = fetch.account {
                guard TransferEndpoint.isValidAccountName(account) else {
                    throw issue("account", "account name is empty or has characters other than letters, digits, _ . -", "use the name given to ferry account add")
                }
                spec.account = account
            }
            let folder = target.hasSuffix("/") ? target : target + "/"
            spec.destination = folder
            details["root"] = .string(folder)
            if spec.batch == nil { spec.batch = spec.jobID.uuidString.lowercased() }
        default:
            break
        }
        return details
    }

    /// Resolves a relative path against `base`, keeping a trailing slash (it means "into this folder").
    static func absolute(_ path: String, base: String) -> String {
        if path.hasPrefix("/") { return path }
        let trimmedBase = base.hasSuffix("/") ? String(base.dropLast()) : base
        var relative = Substring(path)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
        return trimmedBase + "/" + relative
    }
}
