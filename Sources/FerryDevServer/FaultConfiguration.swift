/// Seeded fault injection for the dev server.
///
/// Every request to a `/2/` route draws one number from a seeded PRNG; the rates below are
/// stacked bands on `[0, 1)`, so with the same seed and the same sequence of requests the
/// same faults are injected. ``requestsPerSecond`` is the exception: a budget of time, not chance. The stand-in routes (`/web/`, `/flickr/photos/`,
/// `/services/rest/`) draw too, under the route names `web`, `flickr/photos` and `flickr/rest`.
/// `/__dev/` routes never see faults and `/oauth2/` routes only when ``includeOAuth`` is set.
public struct FaultConfiguration: Sendable, Codable, Equatable {
    /// Seed of the PRNG deciding which request gets a fault.
    public var seed: UInt64
    /// Probability of a 500/503 plain-text response (nothing is applied).
    public var failureRate: Double
    /// Probability of closing the connection without any response (nothing is applied).
    public var dropRate: Double
    /// Probability of applying the request (e.g. appending the chunk, committing the file)
    /// and then closing the connection without a response.
    public var dropAfterApplyRate: Double
    /// Probability of a 429 `too_many_requests` response with `Retry-After`.
    public var rateLimitRate: Double
    /// Value of `Retry-After` and `retry_after` in injected 429 responses.
    public var retryAfterSeconds: Int
    /// Probability of a 409 `too_many_write_operations` on commit routes
    /// (`upload`, `upload_session/finish`, entries of `upload_session/finish_batch_v2`).
    public var writeContentionRate: Double
    /// Probability of the other form of namespace contention on commit routes: HTTP 429 with
    /// `{"error": {"reason": {".tag": "too_many_write_operations"}, "retry_after": N}}` and `Retry-After`.
    public var writeRateLimitRate: Double
    /// Probability that an `upload_session/append_v2` (or `append`) chunk is read whole but only its first half
    /// is kept, then the connection closes without an answer: the retry learns a `correct_offset` inside the chunk.
    public var partialChunkRate: Double
    /// Probability that a commit (`upload`, `upload_session/finish`) stores the file with its first byte changed,
    /// answering with the stored (wrong) `content_hash`: a server that kept different bytes than it was sent.
    public var corruptCommitRate: Double
    /// Requests a second the server answers before it answers 429 `too_many_requests` (with `Retry-After`),
    /// counted over the routes faults apply to; a token bucket holding one second's worth. 0 means no budget.
    public var requestsPerSecond: Int
    /// Latency added to every `/2/` request, in milliseconds.
    public var latencyMilliseconds: Int
    /// When set, faults (and latency) apply only to these routes (e.g. `"files/upload_session/append_v2"`).
    public var routes: [String]?
    /// Also inject faults on `/oauth2/token`.
    public var includeOAuth: Bool
    /// Pace of bodies sent from files (`files/download`, `/web/`, Flickr photos), in bytes per
    /// second; 0 means unlimited. Read before every piece, so it also applies to downloads in flight.
    public var downloadBytesPerSecond: Int64
    /// Pace at which request bodies of uploads (`files/upload`, `upload_session/start`, `append_v2`, `finish`) are
    /// read, in bytes per second; 0 means unlimited. The client feels it as a slow link (TCP backpressure), so
    /// transfers stay in flight long enough for a test to kill a worker in the middle of one.
    public var uploadBytesPerSecond: Int64
    /// While above 0, bodies sent from files stop before this byte of the file and wait, the connection open, until
    /// the limit is raised or cleared: a test can then be sure a download is still in flight when it acts, however
    /// late it gets to act. Read before every piece, like the pace.
    public var downloadPauseAtByte: Int64
    /// How long each commit holds its account's namespace lock, in milliseconds (0: no lock, commits never contend).
    /// As at Dropbox, commits to one account are serialized: one that finds the lock taken waits up to as long again,
    /// then gets HTTP 429 `too_many_write_operations` (with `Retry-After`). A `finish_batch_v2` takes the lock once
    /// for all its entries, which is why batching helps.
    public var namespaceLockMilliseconds: Int
    /// While true, commit routes (`upload`, `upload_session/finish`, `finish_batch_v2`, `finish_batch`) stop just
    /// before committing and wait until it is cleared, then commit (a client gone meanwhile does not stop them): a
    /// test can kill a worker while its data is up and its commit is in flight.
    public var holdCommits: Bool
    /// Commits whose destination's `path_lower` contains one of these strings fail with `path/insufficient_space`
    /// (for `finish_batch_v2`, only those entries fail): a per-entry failure on demand.
    public var failCommitPaths: [String]?

    /// Creates a fault configuration; the default injects nothing.
    public init(
        seed: UInt64 = 0,
        failureRate: Double = 0,
        dropRate: Double = 0,
        dropAfterApplyRate: Double = 0,
        rateLimitRate: Double = 0,
        retryAfterSeconds: Int = 1,
        writeContentionRate: Double = 0,
        writeRateLimitRate: Double = 0,
        partialChunkRate: Double = 0,
        corruptCommitRate: Double = 0,
        requestsPerSecond: Int = 0,
        latencyMilliseconds: Int = 0,
        routes: [String]? = nil,
        includeOAuth: Bool = false,
        downloadBytesPerSecond: Int64 = 0,
        uploadBytesPerSecond: Int64 = 0,
        downloadPauseAtByte: Int64 = 0,
        namespaceLockMilliseconds: Int = 0,
        holdCommits: Bool = false,
        failCommitPaths: [String]? = nil
    ) {
        self.seed = seed
        self.failureRate = failureRate
        self.dropRate = dropRate
        self.dropAfterApplyRate = dropAfterApplyRate
        self.rateLimitRate = rateLimitRate
        self.retryAfterSeconds = retryAfterSeconds
        self.writeContentionRate = writeContentionRate
        self.writeRateLimitRate = writeRateLimitRate
        self.partialChunkRate = partialChunkRate
        self.corruptCommitRate = corruptCommitRate
        self.requestsPerSecond = requestsPerSecond
        self.latencyMilliseconds = latencyMilliseconds
        self.routes = routes
        self.includeOAuth = includeOAuth
        self.downloadBytesPerSecond = downloadBytesPerSecond
        self.uploadBytesPerSecond = uploadBytesPerSecond
        self.downloadPauseAtByte = downloadPauseAtByte
        self.namespaceLockMilliseconds = namespaceLockMilliseconds
        self.holdCommits = holdCommits
        self.failCommitPaths = failCommitPaths
    }

    /// No faults at all.
    public static let none = FaultConfiguration()

    enum CodingKeys: String, CodingKey {
        case seed
        case failureRate = "failure_rate"
        case dropRate = "drop_rate"
        case dropAfterApplyRate = "drop_after_apply_rate"
        case rateLimitRate = "rate_limit_rate"
        case retryAfterSeconds = "retry_after_seconds"
        case writeContentionRate = "write_contention_rate"
        case writeRateLimitRate = "write_rate_limit_rate"
        case partialChunkRate = "partial_chunk_rate"
        case corruptCommitRate = "corrupt_commit_rate"
        case requestsPerSecond = "requests_per_second"
        case latencyMilliseconds = "latency_milliseconds"
        case routes
        case includeOAuth = "include_oauth"
        case downloadBytesPerSecond = "download_bytes_per_second"
        case uploadBytesPerSecond = "upload_bytes_per_second"
        case downloadPauseAtByte = "download_pause_at_byte"
        case namespaceLockMilliseconds = "namespace_lock_milliseconds"
        case holdCommits = "hold_commits"
        case failCommitPaths = "fail_commit_paths"
    }

    /// Accepts snake_case (`failure_rate`) or the Swift names (`failureRate`); missing keys keep
    /// their defaults so `POST /__dev/faults` can send only what it sets.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: FlexibleKey.self)
        func value<T: Decodable>(_ key: CodingKeys, _ swiftName: String, _ type: T.Type) throws -> T? {
            try c.decodeIfPresent(type, forKey: FlexibleKey(key.rawValue)) ?? c.decodeIfPresent(type, forKey: FlexibleKey(swiftName))
        }
        self.init()
        seed = try value(.seed, "seed", UInt64.self) ?? seed
        failureRate = try value(.failureRate, "failureRate", Double.self) ?? failureRate
        dropRate = try value(.dropRate, "dropRate", Double.self) ?? dropRate
        dropAfterApplyRate = try value(.dropAfterApplyRate, "dropAfterApplyRate", Double.self) ?? dropAfterApplyRate
        rateLimitRate = try value(.rateLimitRate, "rateLimitRate", Double.self) ?? rateLimitRate
        retryAfterSeconds = try value(.retryAfterSeconds, "retryAfterSeconds", Int.self) ?? retryAfterSeconds
        writeContentionRate = try value(.writeContentionRate, "writeContentionRate", Double.self) ?? writeContentionRate
        writeRateLimitRate = try value(.writeRateLimitRate, "writeRateLimitRate", Double.self) ?? writeRateLimitRate
        partialChunkRate = try value(.partialChunkRate, "partialChunkRate", Double.self) ?? partialChunkRate
        corruptCommitRate = try value(.corruptCommitRate, "corruptCommitRate", Double.self) ?? corruptCommitRate
        requestsPerSecond = try value(.requestsPerSecond, "requestsPerSecond", Int.self) ?? requestsPerSecond
        latencyMilliseconds = try value(.latencyMilliseconds, "latencyMilliseconds", Int.self) ?? latencyMilliseconds
        routes = try value(.routes, "routes", [String].self)
        includeOAuth = try value(.includeOAuth, "includeOAuth", Bool.self) ?? includeOAuth
        downloadBytesPerSecond = try value(.downloadBytesPerSecond, "downloadBytesPerSecond", Int64.self) ?? downloadBytesPerSecond
        uploadBytesPerSecond = try value(.uploadBytesPerSecond, "uploadBytesPerSecond", Int64.self) ?? uploadBytesPerSecond
        downloadPauseAtByte = try value(.downloadPauseAtByte, "downloadPauseAtByte", Int64.self) ?? downloadPauseAtByte
        namespaceLockMilliseconds = try value(.namespaceLockMilliseconds, "namespaceLockMilliseconds", Int.self) ?? namespaceLockMilliseconds
        holdCommits = try value(.holdCommits, "holdCommits", Bool.self) ?? holdCommits
        failCommitPaths = try value(.failCommitPaths, "failCommitPaths", [String].self)
    }

    private struct FlexibleKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
