/// A job as a caller asked for it, before validation (from CLI flags or one JSON Lines record).
public struct JobRequest: Sendable, Hashable {
    public var kind: JobKind
    /// Upload: a local file path. Fetch: a provider's source (an http(s) URL, `dropbox:ACCOUNT:/path` …).
    public var source: String
    /// Upload: a provider's destination (`dropbox:ACCOUNT:/path`, `file:///dir/` …). Fetch: a local path. A trailing `/` means "into this
    /// folder, keep the source's name".
    public var to: String
    public var batch: String?
    public var queue: String?
    public var priority: Int64?
    /// ISO 8601 time, `now`, or a delay such as `+90s`, `+15m`, `+2h`, `+1d`.
    public var runAt: String?
    public var maxAttempts: Int64?
    public var idempotencyKey: String?
    public var metadata: JSONValue?
    /// Provider options (`--option NAME=VALUE`, `"options": {…}`), checked by the job's provider.
    public var options: [String: OptionValue]
    /// W3C `traceparent` the job's spans join (validated against `TraceParent.format`).
    public var traceparent: String?
    /// 1-based line number when the request came from JSON Lines (used in error messages).
    public var line: Int?

    public init(
        kind: JobKind, source: String, to: String, batch: String? = nil, queue: String? = nil,
        priority: Int64? = nil, runAt: String? = nil, maxAttempts: Int64? = nil, idempotencyKey: String? = nil,
        metadata: JSONValue? = nil, options: [String: OptionValue] = [:], line: Int? = nil, traceparent: String? = nil
    ) {
        self.init(
            kind: kind, source: source,
            defaults: Defaults(
                to: to, batch: batch, queue: queue, priority: priority, runAt: runAt, maxAttempts: maxAttempts, options: options,
                traceparent: traceparent),
            idempotencyKey: idempotencyKey, metadata: metadata, line: line)
    }

    /// A request whose fields a command line can give every record (``Defaults``) come from `defaults`; `to` is
    /// empty when it has none. The one place a request's fields are set.
    init(
        kind: JobKind, source: String, defaults: Defaults, idempotencyKey: String? = nil, metadata: JSONValue? = nil, line: Int? = nil
    ) {
        self.kind = kind
        self.source = source
        self.to = defaults.to ?? ""
        self.batch = defaults.batch
        self.queue = defaults.queue
        self.priority = defaults.priority
        self.runAt = defaults.runAt
        self.maxAttempts = defaults.maxAttempts
        self.options = defaults.options
        self.traceparent = defaults.traceparent
        self.idempotencyKey = idempotencyKey
        self.metadata = metadata
        self.line = line
    }
}
