import FerryCore
import FerryProviders
import FerryStore
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Reads jobs (JSON Lines or plain lines from a file descriptor, or named sources with their trees) on a thread of
/// its own, validates each, and hands out chunks of jobs. At most `depth` chunks wait for the writer, so memory
/// stays bounded by a few chunks whatever the input size, and reading and validation overlap with the database
/// writing the previous chunk.
///
/// Once a job is refused, no further chunk is handed out (nothing more is written); reading continues only to
/// report up to `maxIssues` problems, and the stream ends with them. Everything below `start()` runs on the reading
/// thread, which alone touches the mutable state.
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

    private let input: EnqueueInput
    private let options: StreamedEnqueue
    private let providers: ProviderRegistry
    // Handed-out chunks not yet taken by the writer; the producer waits when `depth` are pending.
    private let slots: DispatchSemaphore
    private let stopped = Atomic(false)
    private let continuation: AsyncStream<Element>.Continuation
    /// The chunks, in input order.
    let stream: AsyncStream<Element>

    // The reading thread's state.
    private let directory = FileManager.default.currentDirectoryPath
    private let inspector = LocalFileInspector()
    /// Ids in input order, so `ORDER BY job_id` lists the jobs as they were given.
    private var ids = UUIDv7Generator(random: BufferedRandomNumberGenerator())
    private var issues = [ValidationIssue]()
    private var moreIssues = 0
    private var specs = [JobSpec]()
    private var lines = [Int?]()
    private var ordinal = 0
    private var jobCount = 0
    private var skipped = 0
    private var filteredOut = 0
    private var chunkInputBytes = 0

    init(input: EnqueueInput, options: StreamedEnqueue, providers: ProviderRegistry, depth: Int = 2) {
        self.input = input
        self.options = options
        self.providers = providers
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

    private var isStopped: Bool { stopped.load(ordering: .relaxed) }

    private func produce() {
        specs.reserveCapacity(options.chunkSize)
        switch input {
        case .lines(let descriptor, _, let plainKind):
            guard readLines(descriptor, plainKind: plainKind) else { return }
        case .operands(let jobs):
            guard produce(jobs) else { return }
        }
        refuseEmptyInput()
        if !issues.isEmpty {
            issues.sort { ($0.line ?? 0) < ($1.line ?? 0) }
            continuation.yield(.issues(issues, more: moreIssues))
            return
        }
        _ = handOut()
    }

    // MARK: Chunks and problems

    private func report(_ issue: ValidationIssue) {
        if issues.count < options.maxIssues { issues.append(issue) } else { moreIssues += 1 }
        // Nothing after the first problem will be written: free the pending chunk now.
        specs.removeAll()
        lines.removeAll()
    }

    /// Hands the pending chunk to the writer (waiting for a slot); false when the writer stopped the producer.
    private func handOut() -> Bool {
        guard !specs.isEmpty, issues.isEmpty else { return true }
        slots.wait()
        if isStopped { return false }
        // Rendered here, on the reading thread, while the connection writes the previous chunk.
        continuation.yield(.jobs(EnqueueChunk(specs: specs, lines: lines)))
        specs = []
        specs.reserveCapacity(options.chunkSize)
        lines = []
        chunkInputBytes = 0
        return true
    }

    private var full: Bool { specs.count >= options.chunkSize || chunkInputBytes >= Self.chunkBytes }

    /// Hands out the chunk once it is full; false when the writer stopped the producer.
    private func handOutIfFull() -> Bool { !full || handOut() }

    private func skip(source: String, reason: String, filtered byFilter: Bool, line: Int? = nil) {
        skipped += 1
        if byFilter { filteredOut += 1 }
        options.fates?.skip(source: source, reason: reason, filtered: byFilter, line: line)
    }

    private func refuse(_ issue: ValidationIssue, source: String, destination: String?, line: Int?) {
        options.fates?.refuse(source: source, destination: destination, reason: "\(issue.field): \(issue.problem); \(issue.fix)", line: line)
        report(issue)
    }

    /// An input without jobs is a mistake (unless `expect` is 0): refused, saying why.
    private func refuseEmptyInput() {
        guard issues.isEmpty && jobCount == 0 && options.expect != 0 else { return }
        switch input {
        case .lines(_, _, let plainKind) where skipped == 0:
            report(ValidationIssue(
                field: "--from", problem: "no jobs in the input",
                fix: plainKind == nil ? "write one JSON object per line" : "write one path or URL per line"))
        default:
            report(ValidationIssue(
                field: "source", problem: "nothing to enqueue: every file was left out (\(filteredOut) by the filters, \(skipped - filteredOut) skipped)",
                fix: "check the filters and the folder; --dry-run lists every file and why it was left out"))
        }
    }

    // MARK: One job

    /// Validates one request and keeps its job (or reports why not). `facts`: the file as a tree walk saw it.
    private func accept(_ request: JobRequest, line: Int?, inputBytes: Int, facts: SourceFileFacts? = nil, label: String? = nil) {
        var request = request
        ordinal += 1
        if let keyBase = options.keyBase, request.idempotencyKey == nil { request.idempotencyKey = "\(keyBase):\(ordinal)" }
        let now = options.now
        let milliseconds = UInt64(max(0, now.timeIntervalSince1970 * 1000))
        do throws(ValidationIssue) {
            let inspect: (String) -> Result<SourceFileFacts, SourceFileFacts.Problem> =
                if let facts { { _ in .success(facts) } } else { inspector.inspect }
            try options.checkRequest?(request, line)
            let spec = try request.validated(
                jobID: ids.next(milliseconds: milliseconds), now: now, currentDirectory: directory, inspectFile: inspect,
                providers: providers)
            try options.check?(spec, line)
            jobCount += 1
            options.fates?.take(source: spec.source, destination: spec.destination, line: line)
            if issues.isEmpty {
                specs.append(spec)
                lines.append(line)
                chunkInputBytes += inputBytes
            }
        } catch {
            var issue = error
            if let label { issue.field = "\(label): \(issue.field)" }
            refuse(issue, source: label ?? request.source, destination: request.to, line: line)
        }
    }

    /// The filter's verdict on an upload path named in a list or on the command line (as written): true when it
    /// is left out.
    private func filtered(_ path: String, line: Int?) -> Bool {
        let filter = options.filter
        guard !filter.isEmpty else { return false }
        var verdict = filter.verdict(path: path)
        if verdict == .take, case .success(let facts) = inspector.inspect(JobRequest.absolute(path, base: directory)) {
            verdict = filter.verdict(
                path: path, size: facts.size, modified: Date(timeIntervalSince1970: TimeInterval(facts.modifiedNanoseconds) / 1e9))
        }
        guard case .skip(let reason) = verdict else { return false }
        skip(source: path, reason: reason, filtered: true, line: line)
        return true
    }

    // MARK: Named sources and trees

    /// The sources one by one, directories walked; false when the writer stopped the producer.
    private func produce(_ jobs: EnqueueOperands) -> Bool {
        let walker = TreeWalker(filter: options.filter, followSymlinks: options.followSymlinks, skipUnreadable: options.skipUnreadable)
        for operand in jobs.operands {
            if isStopped { return false }
            let path = JobRequest.absolute(operand, base: directory)
            var info = stat()
            let isDirectory = jobs.kind == .upload && jobs.recursive && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
            guard isDirectory else {
                if jobs.kind == .upload && filtered(operand, line: nil) { continue }
                accept(jobs.make(operand, jobs.to), line: nil, inputBytes: 0)
                if !handOutIfFull() { return false }
                continue
            }
            guard walk(path, jobs: jobs, walker: walker) else { return false }
        }
        return true
    }

    /// One upload per file below the directory at `path` (absolute); false when the writer stopped the producer.
    private func walk(_ path: String, jobs: EnqueueOperands, walker: TreeWalker) -> Bool {
        // Absolute, as the jobs' sources are: every fate of a dry run names its file the same way.
        let shown = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        if let inside = JobRequest.treeIntoItself(root: path, destination: jobs.to, base: directory, line: nil) {
            options.fates?.refuse(source: shown, destination: nil, reason: "\(inside.problem); \(inside.fix)", line: nil)
            report(inside)
            return true
        }
        // A file URL's path is percent-encoded; the other destinations take the names as they are.
        let encode = jobs.to.hasPrefix("file:")
        var keepGoing = true
        walker.walk(root: path) { entry in
            switch entry {
            case .file(let relative, let source, let facts):
                let destination = jobs.to + (encode ? EndpointSyntax.percentEncodePath(relative) : relative)
                accept(jobs.make(source, destination), line: nil, inputBytes: relative.utf8.count, facts: facts, label: shown + "/" + relative)
                if !handOutIfFull() { keepGoing = false }
            case .skipped(let relative, let reason, let byFilter):
                skip(source: shown + "/" + relative, reason: reason, filtered: byFilter)
            case .problem(let relative, let problem, let fix):
                let label = relative.isEmpty ? shown : shown + "/" + relative
                options.fates?.refuse(source: label, destination: nil, reason: "\(problem); \(fix)", line: nil)
                report(ValidationIssue(field: label, problem: problem, fix: fix))
            }
            return keepGoing && !isStopped
        }
        return keepGoing
    }

    // MARK: Lines

    /// One line of the input: JSON (`plainKind == nil`) or a source of that kind.
    private func handle(_ raw: ArraySlice<UInt8>, line: Int, plainKind: JobKind?) {
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
            accept(JobRequest(plainLine: text, kind: plainKind, line: line, defaults: options.defaults), line: line, inputBytes: bytes.count)
            return
        }
        do throws(ValidationIssue) {
            let request = try JobRequest(jsonLine: text, line: line, optionNames: providers.optionNames, defaults: options.defaults)
            accept(request, line: line, inputBytes: bytes.count)
        } catch {
            refuse(error, source: "", destination: nil, line: line)
        }
    }

    /// Reads lines from `descriptor` and hands each to `handle`; false when the writer stopped the producer.
    private func readLines(_ descriptor: Int32, plainKind: JobKind?) -> Bool {
        var buffer = [UInt8]()
        buffer.reserveCapacity(Self.readSize * 2)
        var chunk = [UInt8](repeating: 0, count: Self.readSize)
        var lineNumber = 0
        var skippingLongLine = false
        var endOfInput = false
        while !endOfInput {
            if isStopped { return false }
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
                    handle(buffer[start..<newline], line: lineNumber, plainKind: plainKind)
                }
                start = newline + 1
                if !handOutIfFull() { return false }
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
