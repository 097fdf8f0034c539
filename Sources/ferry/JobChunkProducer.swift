import FerryClient
import FerryCore
import FerryProviders
import FerryStore
import FerryWorker
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Reads JSON Lines from a file descriptor on a thread of its own, parses and validates each line, and hands
/// out chunks of jobs. At most `depth` chunks wait for the writer, so memory stays bounded by a few chunks
/// whatever the input size, and reading and validation overlap with the database writing the previous chunk.
///
/// Once a line is refused, no further chunk is handed out (nothing more is written); reading continues only
/// to report up to `maxIssues` problems, and the stream ends with them.
final class JobChunkProducer: @unchecked Sendable {
    /// One unit of work for the writer.
    enum Element: Sendable {
        case jobs(EnqueueChunk)
        /// Input problems (sorted by line); nothing may be committed.
        case issues([ValidationIssue], more: Int)
    }

    /// Lines longer than this are refused instead of buffered (the largest valid line is about 20 KiB).
    static let maxLineBytes = 1 << 20
    static let readSize = 1 << 20
    /// A chunk is handed out at `chunkSize` jobs or this many input bytes, whichever comes first, so that lines
    /// with large metadata cannot make a chunk large.
    static let chunkBytes = 1 << 20

    /// Where the jobs come from.
    enum Input: Sendable {
        /// JSON Lines (`plainKind == nil`) or plain lines of sources of that kind, from a file descriptor; closed when
        /// reading ends if `owns`.
        case lines(descriptor: Int32, owns: Bool, plainKind: JobKind?)
        /// Sources named on the command line; directories walked when recursive.
        case operands(CommandLineJobs)
    }

    private let input: Input
    private let defaults: JobRequest.Defaults
    /// Upload trees and lists of upload paths: which files to take.
    private let filter: FileFilter
    private let followSymlinks: Bool
    private let skipUnreadable: Bool
    /// Every job's fate (counts; each one in a dry run).
    let report: EnqueueReport
    private let chunkSize: Int
    private let maxIssues: Int
    /// Jobs without an idempotency key get `keyBase:N` (N: their place in the input), so that the same input
    /// enqueued again by the same invocation (a retry after an unclear commit) creates no duplicates.
    private let keyBase: String?
    /// The time relative `run_at` values count from: the same for every attempt of one invocation.
    private let now: Date
    /// An input without jobs is what was asked for (`--expect 0`), not a mistake to refuse.
    private let emptyExpected: Bool
    // Handed-out chunks not yet taken by the writer; the producer waits when `depth` are pending.
    private let slots: DispatchSemaphore
    private let stopped = Atomic(false)
    private let continuation: AsyncStream<Element>.Continuation
    /// The chunks, in input order.
    let stream: AsyncStream<Element>

    init(
        input: Input, defaults: JobRequest.Defaults = .init(), filter: FileFilter = FileFilter(), followSymlinks: Bool = false,
        skipUnreadable: Bool = false, report: EnqueueReport, chunkSize: Int = 4096, depth: Int = 2, maxIssues: Int = 20,
        keyBase: String? = nil, now: Date = Date(), emptyExpected: Bool = false
    ) {
        self.keyBase = keyBase
        self.emptyExpected = emptyExpected
        self.now = now
        self.input = input
        self.defaults = defaults
        self.filter = filter
        self.followSymlinks = followSymlinks
        self.skipUnreadable = skipUnreadable
        self.report = report
        self.chunkSize = chunkSize
        self.maxIssues = maxIssues
        self.slots = DispatchSemaphore(value: depth)
        (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
    }

    /// Starts reading on a dedicated thread (reads block; they never run on Swift's cooperative pool).
    func start() {
        let thread = Thread { [self] in
            produce()
            if case .lines(let descriptor, true, _) = input { close(descriptor) }
            continuation.finish()
        }
        thread.name = "ferry-enqueue-reader"
        thread.start()
    }

    /// The writer took a chunk: the producer may prepare another.
    func taken() { slots.signal() }

    /// The writer gave up (an error): stop reading and release a waiting producer.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        slots.signal()
    }

    private func produce() {
        let now = self.now
        var ordinal = 0
        let directory = FileManager.default.currentDirectoryPath
        let registry = ProviderRegistry.standard
        let inspector = LocalFileInspector()
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        // Ids in input order, so `ORDER BY job_id` lists the jobs as they were given.
        var ids = UUIDv7Generator(random: BufferedRandomNumberGenerator())
        var issues = [ValidationIssue]()
        var moreIssues = 0
        var specs = [JobSpec]()
        var lines = [Int?]()
        var jobCount = 0
        var chunkInputBytes = 0
        specs.reserveCapacity(chunkSize)

        func report(_ issue: ValidationIssue) {
            if issues.count < maxIssues { issues.append(issue) } else { moreIssues += 1 }
            // Nothing after the first problem will be written: free the pending chunk now.
            specs.removeAll()
            lines.removeAll()
        }
        func handOut() -> Bool {
            guard !specs.isEmpty, issues.isEmpty else { return true }
            slots.wait()
            if stopped.load(ordering: .relaxed) { return false }
            // Rendered here, on the reading thread, while the connection writes the previous chunk.
            continuation.yield(.jobs(EnqueueChunk(specs: specs, lines: lines)))
            specs = []
            specs.reserveCapacity(chunkSize)
            lines = []
            chunkInputBytes = 0
            return true
        }
        /// Validates one request and keeps its job (or reports why not). `facts`: the file as a tree walk saw it.
        func accept(_ request: JobRequest, line: Int?, inputBytes: Int, facts: SourceFileFacts? = nil, label: String? = nil) {
            var request = request
            ordinal += 1
            if let keyBase, request.idempotencyKey == nil { request.idempotencyKey = "\(keyBase):\(ordinal)" }
            do throws(ValidationIssue) {
                try ProducerLocalRoots.checkAbsolute(request, line: line, currentDirectory: directory)
                let spec =
                    if let facts {
                        try request.validated(
                            jobID: ids.next(milliseconds: milliseconds), now: now, currentDirectory: directory,
                            inspectFile: { _ in .success(facts) }, providers: registry)
                    } else {
                        try request.validated(
                            jobID: ids.next(milliseconds: milliseconds), now: now, currentDirectory: directory,
                            inspectFile: inspector.inspect, providers: registry)
                    }
                try ProducerLocalRoots.check(spec, line: line)
                jobCount += 1
                self.report.take(source: spec.source, destination: spec.destination, line: line)
                if issues.isEmpty {
                    specs.append(spec)
                    lines.append(line)
                    chunkInputBytes += inputBytes
                }
            } catch {
                var issue = error
                if let label { issue.field = "\(label): \(issue.field)" }
                self.report.refuse(source: label ?? request.source, destination: request.to, reason: "\(issue.field): \(issue.problem); \(issue.fix)", line: line)
                report(issue)
            }
        }
        /// The filter's verdict on an upload path named in a list or on the command line (as written).
        func filtered(_ path: String, line: Int?) -> Bool {
            guard !filter.isEmpty else { return false }
            var verdict = filter.verdict(path: path)
            if verdict == .take, case .success(let facts) = inspector.inspect(JobRequest.absolute(path, base: directory)) {
                verdict = filter.verdict(
                    path: path, size: facts.size, modified: Date(timeIntervalSince1970: TimeInterval(facts.modifiedNanoseconds) / 1e9))
            }
            guard case .skip(let reason) = verdict else { return false }
            self.report.skip(source: path, reason: reason, filtered: true, line: line)
            return true
        }
        func handle(_ raw: ArraySlice<UInt8>, line: Int, plainKind: JobKind?) {
            // Spreadsheet exports start with a UTF-8 byte order mark and end lines with CRLF: neither is content.
            var bytes = raw
            if line == 1 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
            if bytes.last == 13 { bytes = bytes.dropLast() }
            if bytes.count > Self.maxLineBytes {
                report(ValidationIssue(line: line, field: "json", problem: "the line is longer than 1 MiB", fix: "write one job per line; metadata may hold at most 16 KiB"))
                return
            }
            if bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 13 }) { return }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                report(ValidationIssue(
                    line: line, field: plainKind == nil ? "json" : "source", problem: "the line is not UTF-8 text",
                    fix: plainKind == nil ? "write JSON Lines in UTF-8" : "write one path or URL per line in UTF-8"))
                return
            }
            if let plainKind {
                // In plain lines a path may end in spaces: only the line break is not part of it.
                if plainKind == .upload && filtered(text, line: line) { return }
                accept(JobRequest(plainLine: text, kind: plainKind, line: line, defaults: defaults), line: line, inputBytes: bytes.count)
                return
            }
            do throws(ValidationIssue) {
                let request = try JobRequest(jsonLine: text, line: line, optionNames: registry.optionNames, defaults: defaults)
                accept(request, line: line, inputBytes: bytes.count)
            } catch {
                self.report.refuse(source: "", destination: nil, reason: "\(error.field): \(error.problem); \(error.fix)", line: line)
                report(error)
            }
        }
        func full() -> Bool { specs.count >= chunkSize || chunkInputBytes >= Self.chunkBytes }

        switch input {
        case .lines(let descriptor, _, let plainKind):
            guard readLines(descriptor, plainKind: plainKind, handle: handle, full: full, handOut: handOut, report: report) else { return }
        case .operands(let jobs):
            let walker = TreeWalker(filter: filter, followSymlinks: followSymlinks, skipUnreadable: skipUnreadable)
            for operand in jobs.operands {
                if stopped.load(ordering: .relaxed) { return }
                let path = JobRequest.absolute(operand, base: directory)
                var info = stat()
                let isDirectory = jobs.kind == .upload && jobs.recursive && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
                guard isDirectory else {
                    if jobs.kind == .upload && filtered(operand, line: nil) { continue }
                    accept(jobs.make(operand, jobs.to), line: nil, inputBytes: 0)
                    if full() && !handOut() { return }
                    continue
                }
                // Absolute, as the jobs' sources are: every fate of a dry run names its file the same way.
                let shown = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
                if let inside = JobRequest.treeIntoItself(root: path, destination: jobs.to, base: directory, line: nil) {
                    self.report.refuse(source: shown, destination: nil, reason: "\(inside.problem); \(inside.fix)", line: nil)
                    report(inside)
                    continue
                }
                // A file URL's path is percent-encoded; the other destinations take the names as they are.
                let encode = jobs.to.hasPrefix("file:")
                var keepGoing = true
                walker.walk(root: path) { entry in
                    switch entry {
                    case .file(let relative, let source, let facts):
                        let destination = jobs.to + (encode ? EndpointSyntax.percentEncodePath(relative) : relative)
                        accept(jobs.make(source, destination), line: nil, inputBytes: relative.utf8.count, facts: facts, label: shown + "/" + relative)
                        if full() && !handOut() { keepGoing = false }
                    case .skipped(let relative, let reason, let byFilter):
                        self.report.skip(source: shown + "/" + relative, reason: reason, filtered: byFilter)
                    case .problem(let relative, let problem, let fix):
                        let label = relative.isEmpty ? shown : shown + "/" + relative
                        self.report.refuse(source: label, destination: nil, reason: "\(problem); \(fix)", line: nil)
                        report(ValidationIssue(field: label, problem: problem, fix: fix))
                    }
                    return keepGoing && !self.stopped.load(ordering: .relaxed)
                }
                if !keepGoing { return }
            }
        }
        if issues.isEmpty && jobCount == 0 && !emptyExpected {
            switch input {
            case .lines(_, _, let plainKind) where self.report.skipped == 0:
                report(ValidationIssue(
                    field: "--from", problem: "no jobs in the input",
                    fix: plainKind == nil ? "write one JSON object per line" : "write one path or URL per line"))
            default:
                report(ValidationIssue(
                    field: "source", problem: "nothing to enqueue: every file was left out (\(self.report.filtered) by the filters, \(self.report.skipped - self.report.filtered) skipped)",
                    fix: "check the filters and the folder; --dry-run lists every file and why it was left out"))
            }
        }
        if !issues.isEmpty {
            issues.sort { ($0.line ?? 0) < ($1.line ?? 0) }
            continuation.yield(.issues(issues, more: moreIssues))
            return
        }
        _ = handOut()
    }

    /// Reads lines from `descriptor` and hands each to `handle`; false when the writer stopped the producer.
    private func readLines(
        _ descriptor: Int32, plainKind: JobKind?, handle: (ArraySlice<UInt8>, Int, JobKind?) -> Void, full: () -> Bool,
        handOut: () -> Bool, report: (ValidationIssue) -> Void
    ) -> Bool {
        var buffer = [UInt8]()
        buffer.reserveCapacity(Self.readSize * 2)
        var chunk = [UInt8](repeating: 0, count: Self.readSize)
        var lineNumber = 0
        var skippingLongLine = false
        var endOfInput = false
        while !endOfInput {
            if stopped.load(ordering: .relaxed) { return false }
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, Self.readSize) }
            if count < 0 {
                if errno == EINTR { continue }
                report(ValidationIssue(field: "--from", problem: "reading the input failed (\(String(cString: strerror(errno))))", fix: "check the file or the program writing to standard input"))
                break
            }
            if count == 0 {
                endOfInput = true
                if !buffer.isEmpty || skippingLongLine { buffer.append(UInt8(ascii: "\n")) }
            } else {
                buffer.append(contentsOf: chunk[0..<count])
            }
            var start = buffer.startIndex
            while let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                lineNumber += 1
                if skippingLongLine {
                    skippingLongLine = false
                } else {
                    handle(buffer[start..<newline], lineNumber, plainKind)
                }
                start = newline + 1
                if full() && !handOut() { return false }
            }
            buffer.removeSubrange(buffer.startIndex..<start)
            if buffer.count > Self.maxLineBytes && !skippingLongLine {
                report(ValidationIssue(line: lineNumber + 1, field: "json", problem: "the line is longer than 1 MiB", fix: "write one job per line; metadata may hold at most 16 KiB"))
                skippingLongLine = true
            }
            if skippingLongLine { buffer.removeAll(keepingCapacity: true) }
        }
        return true
    }
}
