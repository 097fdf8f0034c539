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
        self.traceparent = traceparent
        self.kind = kind
        self.source = source
        self.to = to
        self.batch = batch
        self.queue = queue
        self.priority = priority
        self.runAt = runAt
        self.maxAttempts = maxAttempts
        self.idempotencyKey = idempotencyKey
        self.metadata = metadata
        self.options = options
        self.line = line
    }
}
