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

    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let defaults: JobRequest.Defaults
    /// `nil` for JSON Lines; a kind for plain lines, each one a source of that kind.
    private let plainKind: JobKind?
    private let chunkSize: Int
    private let maxIssues: Int
    // Handed-out chunks not yet taken by the writer; the producer waits when `depth` are pending.
    private let slots: DispatchSemaphore
    private let stopped = Atomic(false)
    private let continuation: AsyncStream<Element>.Continuation
    /// The chunks, in input order.
    let stream: AsyncStream<Element>

    /// - Parameter descriptor: an open file descriptor to read; closed when reading ends if `ownsDescriptor`.
    init(
        descriptor: Int32, ownsDescriptor: Bool, defaults: JobRequest.Defaults, plainKind: JobKind? = nil, chunkSize: Int = 4096,
        depth: Int = 2, maxIssues: Int = 20
    ) {
        self.descriptor = descriptor
        self.plainKind = plainKind
        self.ownsDescriptor = ownsDescriptor
        self.defaults = defaults
        self.chunkSize = chunkSize
        self.maxIssues = maxIssues
        self.slots = DispatchSemaphore(value: depth)
        (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
    }

    /// Starts reading on a dedicated thread (reads block; they never run on Swift's cooperative pool).
    func start() {
        let thread = Thread { [self] in
            produce()
            if ownsDescriptor { close(descriptor) }
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
        let now = Date()
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
        func handle(_ raw: ArraySlice<UInt8>, line: Int) {
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
            do throws(ValidationIssue) {
                // In plain lines a path may end in spaces: only the line break is not part of it.
                let request =
                    if let plainKind {
                        JobRequest(plainLine: text, kind: plainKind, line: line, defaults: defaults)
                    } else {
                        try JobRequest(jsonLine: text, line: line, optionNames: registry.optionNames, defaults: defaults)
                    }
                let spec = try request.validated(
                    jobID: ids.next(milliseconds: milliseconds), now: now, currentDirectory: directory, inspectFile: inspector.inspect,
                    providers: registry)
                jobCount += 1
                if issues.isEmpty {
                    specs.append(spec)
                    lines.append(line)
                    chunkInputBytes += bytes.count
                }
            } catch {
                report(error)
            }
        }

        var buffer = [UInt8]()
        buffer.reserveCapacity(Self.readSize * 2)
        var chunk = [UInt8](repeating: 0, count: Self.readSize)
        var lineNumber = 0
        var skippingLongLine = false
        var endOfInput = false
        while !endOfInput {
            if stopped.load(ordering: .relaxed) { return }
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
                    handle(buffer[start..<newline], line: lineNumber)
                }
                start = newline + 1
                if (specs.count >= chunkSize || chunkInputBytes >= Self.chunkBytes) && !handOut() { return }
            }
            buffer.removeSubrange(buffer.startIndex..<start)
            if buffer.count > Self.maxLineBytes && !skippingLongLine {
                report(ValidationIssue(line: lineNumber + 1, field: "json", problem: "the line is longer than 1 MiB", fix: "write one job per line; metadata may hold at most 16 KiB"))
                skippingLongLine = true
            }
            if skippingLongLine { buffer.removeAll(keepingCapacity: true) }
        }
        if issues.isEmpty && jobCount == 0 {
            report(ValidationIssue(
                field: "--from", problem: "no jobs in the input",
                fix: plainKind == nil ? "write one JSON object per line" : "write one path or URL per line"))
        }
        if !issues.isEmpty {
            issues.sort { ($0.line ?? 0) < ($1.line ?? 0) }
            continuation.yield(.issues(issues, more: moreIssues))
            return
        }
        _ = handOut()
    }
}
