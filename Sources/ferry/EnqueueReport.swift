import FerryClient
import FerryCore
import FerryStore
import Foundation

/// The fate of every file or job of one enqueue: taken, skipped (filtered, a link, a special file) or refused.
///
/// In a dry run each fate is kept, as a JSON line, in an unlinked temporary file (any number of jobs in bounded
/// memory) and printed at the end, after the database has checked what only it can check (accounts, keys,
/// collisions). In a real run only the counts are kept, and skips that are not the filter's (links, special files)
/// are named on stderr as they are found. Written by the enqueue's reading thread only, read after it finished.
final class EnqueueReport: EnqueueFates, @unchecked Sendable {
    let dryRun: Bool
    private let spool: OutputSpool?
    private(set) var enqueued = 0
    private(set) var skipped = 0
    private(set) var filtered = 0
    private(set) var refused = 0
    /// A fate that could not be kept (the temporary folder is full): the dry run says so instead of listing less.
    private var spoolFailure: (any Error)?

    init(dryRun: Bool) throws {
        self.dryRun = dryRun
        spool = dryRun ? try OutputSpool() : nil
    }

    func take(source: String, destination: String, line: Int?) {
        enqueued += 1
        record(["fate": .string("enqueue"), "source": .string(source), "destination": .string(destination)], line: line)
    }

    func skip(source: String, reason: String, filtered byFilter: Bool, line: Int? = nil) {
        skipped += 1
        if byFilter { filtered += 1 }
        if !dryRun && !byFilter { printError(TablePrinter.printable("skipped: \(source): \(reason)")) }
        record(["fate": .string("skip"), "source": .string(source), "reason": .string(reason)], line: line)
    }

    func refuse(source: String, destination: String?, reason: String, line: Int?) {
        refused += 1
        var object: [String: JSONValue] = ["fate": .string("refuse"), "source": .string(source), "reason": .string(reason)]
        if let destination { object["destination"] = .string(destination) }
        record(object, line: line)
    }

    private func record(_ object: [String: JSONValue], line: Int?) {
        guard let spool else { return }
        var object = object
        if let line { object["line"] = .int(Int64(line)) }
        guard spoolFailure == nil else { return }
        do { try spool.write(JSONValue.object(object).jsonText + "\n") } catch { spoolFailure = error }
    }

    /// Says on stderr how many files the filter left out (a real run names only the other skips one by one).
    func summarizeFiltered() {
        if !dryRun && filtered > 0 { printError("\(filtered) left out by the filters (--dry-run lists them)") }
    }

    /// Prints the dry run: one JSON object per file or job (`--json`), or one line each and a summary. Jobs that
    /// the database found colliding are shown refused, naming the other sources.
    func printDryRun(json: Bool, collisions: [DestinationCollision], issues: Int) throws {
        guard let spool else { return }
        if let spoolFailure { throw spoolFailure }
        var colliding = [String: String]()
        for collision in collisions {
            for source in collision.sources {
                let others = collision.sources.filter { $0 != source }.prefix(3)
                // The same file named twice has no other source to name.
                let named = others.isEmpty ? "another job of this file" : others.joined(separator: ", ")
                colliding[source] = "collision: \(named) also target\(others.count > 1 ? "" : "s") \(collision.destination) (\(collision.jobs) jobs in all); give them different destinations"
            }
        }
        let out = try OutputSpool()
        var refusedNow = refused
        try spool.forEachLine { text in
            guard var object = (try? JSONValue.parse(text))?.objectValue else { return }
            if object["fate"]?.stringValue == "enqueue", let source = object["source"]?.stringValue, let reason = colliding[source] {
                object["fate"] = .string("refuse")
                object["reason"] = .string(reason)
                refusedNow += 1
            }
            if json {
                try out.write(JSONValue.object(object).jsonText + "\n")
                return
            }
            let fate = object["fate"]?.stringValue ?? ""
            let source = object["source"]?.stringValue ?? ""
            let place = object["line"]?.intValue.map { "line \($0): " } ?? ""
            // File names and reasons come from the producer's input and the disk: shown as text, never as escapes.
            switch fate {
            case "enqueue":
                try out.write(TablePrinter.printable("enqueue  \(place)\(source) -> \(object["destination"]?.stringValue ?? "")") + "\n")
            default:
                try out.write(
                    TablePrinter.printable("\(fate.padding(toLength: 8, withPad: " ", startingAt: 0)) \(place)\(source): \(object["reason"]?.stringValue ?? "")")
                        + "\n")
            }
        }
        if !json {
            let taken = enqueued - (refusedNow - refused)
            try out.write("dry run: \(taken) to enqueue, \(skipped) skipped, \(refusedNow) refused\(issues > 0 || refusedNow > 0 ? " (the enqueue would fail)" : ""); nothing was written\n")
        }
        try out.copyToStandardOutput()
    }
}
