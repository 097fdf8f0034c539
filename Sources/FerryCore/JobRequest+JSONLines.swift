extension JobRequest {
    /// The fields every JSON Lines record may carry, whatever its provider.
    public static let jsonFields: Set<String> = [
        "kind", "source", "to", "batch", "queue", "priority", "run_at", "max_attempts", "key", "metadata", "options",
        "traceparent",
    ]

    /// Parses one JSON Lines record, naming the line and field of any problem.
    ///
    /// Provider options go in `"options": {…}`; a provider option's name (`optionNames`) may also be a top-level
    /// field, as a shorthand. `defaults` supplies values for fields the record leaves out (for example `--batch`
    /// or `--option` given on the command line).
    public init(
        jsonLine text: String, line: Int, optionNames: Set<String>, defaults: JobRequest.Defaults = .init()
    ) throws(ValidationIssue) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw ValidationIssue(line: line, field: "json", problem: "not valid JSON (\(error))", fix: "write one JSON object per line")
        }
        guard case .object(let object) = value else {
            throw ValidationIssue(line: line, field: "json", problem: "the line is not a JSON object", fix: "write one {…} object per line")
        }
        if let unknown = object.keys.sorted().first(where: { !Self.jsonFields.contains($0) && !optionNames.contains($0) }) {
            throw ValidationIssue(
                line: line, field: unknown, problem: "unknown field",
                fix: "use only: " + Self.jsonFields.sorted().joined(separator: ", ")
                    + (optionNames.isEmpty ? "" : "; provider options (also inside \"options\"): " + optionNames.sorted().joined(separator: ", ")))
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
        var options = [String: OptionValue]()
        switch object["options"] {
        case nil, .null?: break
        case .object(let members)?:
            for (name, value) in members where value != .null { options[name] = .json(value) }
        default:
            throw ValidationIssue(line: line, field: "options", problem: "must be a JSON object", fix: "write \"options\": {\"mode\": \"overwrite\"}")
        }
        for name in optionNames.sorted() {
            guard let value = object[name], value != .null else { continue }
            if options[name] != nil {
                throw ValidationIssue(
                    line: line, field: name, problem: "given twice, at the top level and in \"options\"", fix: "give it once")
            }
            options[name] = .json(value)
        }
        for (name, value) in defaults.options where options[name] == nil { options[name] = value }
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
            options: options,
            line: line,
            traceparent: try string("traceparent") ?? defaults.traceparent
        )
        if self.to.isEmpty {
            throw ValidationIssue(line: line, field: "to", problem: "missing", fix: "add a \"to\" string or pass --to")
        }
    }

    /// A job from a plain line (`--format lines`): the line is the source, everything else comes from `defaults`.
    public init(plainLine text: String, kind: JobKind, line: Int, defaults: JobRequest.Defaults) {
        self.init(kind: kind, source: text, defaults: defaults, line: line)
    }

    /// Values applied to records that leave a field out.
    public struct Defaults: Sendable {
        public var to: String?
        public var batch: String?
        public var queue: String?
        public var priority: Int64?
        public var runAt: String?
        public var maxAttempts: Int64?
        /// Provider options for lines that leave them out (a checksum is per line and never defaulted).
        public var options: [String: OptionValue]
        /// The trace every line joins unless it names its own.
        public var traceparent: String?

        public init(
            to: String? = nil, batch: String? = nil, queue: String? = nil, priority: Int64? = nil,
            runAt: String? = nil, maxAttempts: Int64? = nil, options: [String: OptionValue] = [:],
            traceparent: String? = nil
        ) {
            self.traceparent = traceparent
            self.to = to
            self.batch = batch
            self.queue = queue
            self.priority = priority
            self.runAt = runAt
            self.maxAttempts = maxAttempts
            self.options = options
        }
    }
}
