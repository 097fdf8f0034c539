import FerryCore
import Foundation

/// How ``FerryClient/enqueueStream(_:options:outcomes:)`` reads, checks and writes its jobs.
public struct StreamedEnqueue: Sendable {
    /// Values for requests that do not give their own (a JSON line without a batch, say).
    public var defaults: JobRequest.Defaults
    /// Upload trees and lists of upload paths: which files to take.
    public var filter: FileFilter
    public var followSymlinks: Bool
    /// Leave unreadable and special files out (named to ``fates``) instead of refusing the enqueue.
    public var skipUnreadable: Bool
    /// Jobs without an idempotency key get `keyBase:N` (N: their place in the input), so that the same input
    /// enqueued again (a retry after an unclear commit) creates no duplicates.
    public var keyBase: String?
    /// The time relative `run_at` values count from: the same for every attempt of one enqueue.
    public var now: Date
    /// The number of jobs the input must hold: any other number enqueues none (a producer that died mid-stream).
    /// 0 also makes an empty input what was asked for rather than a mistake.
    public var expect: Int?
    /// Check everything, including accounts, keys and collisions, then roll back.
    public var dryRun: Bool
    /// A check of each request as given, before validation resolves its paths (a relative local destination
    /// refused where the workers cannot know the producer's folder, say).
    public var checkRequest: (@Sendable (_ request: JobRequest, _ line: Int?) throws(ValidationIssue) -> Void)?
    /// A further check of each valid job (the workers' local roots as the producer knows them, say).
    public var check: (@Sendable (_ spec: JobSpec, _ line: Int?) throws(ValidationIssue) -> Void)?
    /// Told each job's or file's fate as it is read.
    public var fates: (any EnqueueFates)?
    /// Jobs per chunk written with COPY (a chunk also ends at 1 MiB of input).
    public var chunkSize: Int
    /// Problems listed at most; the rest are counted.
    public var maxIssues: Int

    public init(
        defaults: JobRequest.Defaults = .init(), filter: FileFilter = FileFilter(), followSymlinks: Bool = false,
        skipUnreadable: Bool = false, keyBase: String? = nil, now: Date = Date(), expect: Int? = nil, dryRun: Bool = false,
        checkRequest: (@Sendable (_ request: JobRequest, _ line: Int?) throws(ValidationIssue) -> Void)? = nil,
        check: (@Sendable (_ spec: JobSpec, _ line: Int?) throws(ValidationIssue) -> Void)? = nil,
        fates: (any EnqueueFates)? = nil, chunkSize: Int = 4096, maxIssues: Int = 20
    ) {
        self.defaults = defaults
        self.filter = filter
        self.followSymlinks = followSymlinks
        self.skipUnreadable = skipUnreadable
        self.keyBase = keyBase
        self.now = now
        self.expect = expect
        self.dryRun = dryRun
        self.checkRequest = checkRequest
        self.check = check
        self.fates = fates
        self.chunkSize = chunkSize
        self.maxIssues = maxIssues
    }
}
