import Crypto
import FerryCore
import FerryProviders
import FerryStore
import Foundation
import Synchronization

/// A tree upload (`tree`: the source is a folder): walks the folder on this worker when the job runs and fans out
/// one upload per file below it into the job's batch, keeping each file's path under the destination folder.
///
/// Each child is keyed by the tree, its path and the file's size and modification time, so a tree walked again (the
/// next run of a schedule) enqueues only new and changed files: an unchanged file's child exists under its key,
/// and costs no event. The children carry the parent's provider options (so `if_changed` still skips content
/// the destination holds). A filter the job carries leaves files out as `ferry enqueue`'s walk would. The walk
/// never follows symbolic links and stays below the folder, which must be inside
/// the worker's local roots; links, special and unreadable files are skipped, counted and logged. Pages of 500
/// children are enqueued as the walk goes; a new attempt walks again, and the keys make that exactly once.
struct TreeUploadHandler: JobHandler {
    static let pageSize = 500

    var name: String { "tree-upload" }

    func run(_ job: ClaimedJob, context: JobContext) async throws -> JobResult {
        let root = job.source
        let roots = context.localRoots
        do {
            _ = try await BlockingIO.run { try roots.openDirectory(root, create: false, role: "source") }
        } catch let error as LocalRootsError {
            throw JobFailure.permanent("outside_local_roots", error.description)
        } catch let error as POSIXFailure {
            throw JobFailure.permanent("source_unreadable", error.description)
        }
        // The tree's filter (a schedule's --include, --exclude, sizes, ages), its ages counted back from now.
        let filter = ListingFilterReader.filter(of: job) ?? FileFilter()
        var parentDetails = (try? JSONValue.parse(job.spec))?.objectValue ?? [:]
        for key in [TreeUpload.specKey, ListingFilter.specKey, "parent"] { parentDetails[key] = nil }
        let details = parentDetails
        let encode = job.destination.hasPrefix("file:")
        let base = Self.treeKey(job)
        let (pages, continuation) = AsyncStream.makeStream(of: [FanOutChild].self)
        let stop = Stop()
        // The walk blocks in readdir and fstatat: off the cooperative pool, handing pages over as it goes.
        let walk = Task { try await BlockingIO.run { () -> (listed: Int64, skipped: Int64, filtered: Int64) in
            var (listed, skipped, filtered) = (Int64(0), Int64(0), Int64(0))
            var page = [FanOutChild]()
            TreeWalker(filter: filter, followSymlinks: false, skipUnreadable: true).walk(root: root) { entry in
                switch entry {
                case .file(let relative, let source, let facts):
                    listed += 1
                    var childDetails = details
                    childDetails.merge(facts.details) { _, fact in fact }
                    page.append(FanOutChild(
                        kind: .upload, source: source,
                        destination: job.destination + (encode ? EndpointSyntax.percentEncodePath(relative) : relative),
                        account: job.account,
                        idempotencyKey: Self.childKey(base, relative: relative, facts: facts), bytesTotal: facts.size,
                        details: childDetails))
                    if page.count >= Self.pageSize {
                        continuation.yield(page)
                        page.removeAll(keepingCapacity: true)
                    }
                case .skipped(_, _, filtered: true):
                    filtered += 1
                case .skipped, .problem:
                    skipped += 1
                }
                return !stop.flag.load(ordering: .relaxed)
            }
            if !page.isEmpty { continuation.yield(page) }
            continuation.finish()
            return (listed, skipped, filtered)
        } }
        var created = 0
        var sent: Int64 = 0
        do {
            for await page in pages {
                created += try await context.fanOut(
                    page, bytesDone: 0, session: .object(["walked": .int(sent + Int64(page.count))]))
                sent += Int64(page.count)
            }
        } catch {
            stop.flag.store(true, ordering: .relaxed)
            throw error
        }
        let (listed, skipped, filtered) = try await walk.value
        if skipped > 0 {
            context.logger.warning("left out links, special or unreadable files of the tree", metadata: ["count": "\(skipped)"])
        }
        context.logger.info("tree walked", metadata: ["files": "\(listed)", "enqueued": "\(created)", "filtered": "\(filtered)"])
        return JobResult(details: .object([
            "files": .int(listed), "enqueued": .int(Int64(created)), "unchanged": .int(listed - Int64(created)),
            "skipped": .int(skipped), "filtered": .int(filtered),
        ]))
    }

    /// What names the tree across runs: its folder, its destination and the account.
    static func treeKey(_ job: ClaimedJob) -> String {
        hex(SHA256.hash(data: Array("\(job.source)\u{0}\(job.destination)\u{0}\(job.account ?? "")".utf8))).prefix(24).description
    }

    /// One version of one file of the tree.
    static func childKey(_ tree: String, relative: String, facts: SourceFileFacts) -> String {
        let file = hex(SHA256.hash(data: Array("\(relative)\u{0}\(facts.size)\u{0}\(facts.modifiedNanoseconds)".utf8))).prefix(32)
        return "tree:\(tree):\(file)"
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Tells the walk to end early (the job failed or lost its claim).
    final class Stop: Sendable {
        let flag = Atomic(false)
    }
}
