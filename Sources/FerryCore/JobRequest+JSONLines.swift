extension JobRequest {
    /// Fields a JSON Lines record may carry.
    public static let jsonFields: Set<String> = [
        "kind", "source", "to", "batch", "queue", "priority", "run_at", "max_attempts", "key", "metadata",
        "sha256", "recursive", "thumbnail", "size", "max", "account", "page_size",
    ]

    /// Parses one JSON Lines record, naming the line and field of any problem.
    ///
    /// `defaults` supplies values for fields the record leaves out (for example `--batch` given on the command line).
    public init(jsonLine text: String, line: Int, defaults: JobRequest.Defaults = .init()) throws(ValidationIssue) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw ValidationIssue(line: line, field: "json", problem: "not valid JSON (\(error))", fix: "write one JSON object per line")
        }
        guard case .object(let object) = value else {
            throw ValidationIssue(line: line, field: "json", problem: "the line is not a JSON object", fix: "write one {…} object per line")
        }
        if let unknown = object.keys.sorted().first(where: { !Self.jsonFields.contains($0) }) {
            throw ValidationIssue(
                line: line, field: unknown, problem: "unknown field",
                fix: "use only: " + Self.jsonFields.sorted().joined(separator: ", "))
        }
        func string(_ key: String, required: Bool = false) throws(ValidationIssue) -> String? {
            switch object[key] {
            case nil, .null?:
                if required {
                    throw ValidationIssue(line: line, field: key, problem: "missing", fix: "add a \"\(key)\" string")
                }
                return nil
            case .string(let value)?: return value
            default: throw ValidationIssue(line: line, field: key, problem: "must be a string", fix: "quote the value")
            }
        }
        func integer(_ key: String) throws(ValidationIssue) -> Int64? {
            switch object[key] {
            case nil, .null?: return nil
            case .int(let value)?: return value
            default: throw ValidationIssue(line: line, field: key, problem: "must be an integer", fix: "write a whole number without quotes")
            }
        }
        func boolean(_ key: String) throws(ValidationIssue) -> Bool? {
            switch object[key] {
            case nil, .null?: return nil
            case .bool(let value)?: return value
            default: throw ValidationIssue(line: line, field: key, problem: "must be true or false", fix: "write true or false without quotes")
            }
        }
        let kindText = try string("kind", required: true)!
        guard let kind = JobKind(rawValue: kindText) else {
            throw ValidationIssue(line: line, field: "kind", problem: "must be \"upload\" or \"fetch\"", fix: "set \"kind\": \"upload\" or \"fetch\"")
        }
        let metadata = object["metadata"]
        if let metadata, metadata != .null {
            guard case .object = metadata else {
                throw ValidationIssue(line: line, field: "metadata", problem: "must be a JSON object", fix: "write \"metadata\": {\"title\": \"…\"}")
            }
        }
        self.init(
            kind: kind,
            source: try string("source", required: true)!,
            to: try string("to") ?? defaults.to ?? "",
            batch: try string("batch") ?? defaults.batch,
            queue: try string("queue") ?? defaults.queue,
            priority: try integer("priority") ?? defaults.priority,
            runAt: try string("run_at") ?? defaults.runAt,
            maxAttempts: try integer("max_attempts") ?? defaults.maxAttempts,
            idempotencyKey: try string("key"),
            metadata: metadata == .null ? nil : metadata,
            fetch: FetchOptions(
                sha256: try string("sha256"), recursive: try boolean("recursive") ?? defaults.fetch.recursive,
                thumbnail: try string("thumbnail") ?? defaults.fetch.thumbnail, size: try string("size") ?? defaults.fetch.size,
                max: try integer("max") ?? defaults.fetch.max, account: try string("account") ?? defaults.fetch.account,
                pageSize: try integer("page_size") ?? defaults.fetch.pageSize),
            line: line
        )
        if self.to.isEmpty {
            throw ValidationIssue(line: line, field: "to", problem: "missing", fix: "add a \"to\" string or pass --to")
        }
    }

    /// Values applied to records that leave a field out.
    public struct Defaults: Sendable {
        public var to: String?
        public var batch: String?
        public var queue: String?
        public var priority: Int64?
        public var runAt: String?
        public var maxAttempts: Int64?
        /// Fetch options for fetch lines that leave them out (the checksum is per line and never defaulted).
        public var fetch: FetchOptions

        public init(
            to: String? = nil, batch: String? = nil, queue: String? = nil, priority: Int64? = nil,
            runAt: String? = nil, maxAttempts: Int64? = nil, fetch: FetchOptions = FetchOptions()
        ) {
            self.to = to
            self.batch = batch
            self.queue = queue
            self.priority = priority
            self.runAt = runAt
            self.maxAttempts = maxAttempts
            self.fetch = fetch
        }
    }
}
