import ArgumentParser
import FerryCore
import Foundation

/// Flags of upload trees and lists of paths: filters (``FilterFlags``), the symlink policy, what to do with files
/// that cannot be uploaded, and the dry run (every enqueue form).
struct TreeFlags: ParsableArguments {
    @OptionGroup var filter: FilterFlags

    @Flag(name: [.customShort("L"), .customLong("follow-symlinks")], help: "Follow symbolic links in trees (loops are detected and skipped). Default: skip them and say so.")
    var followSymlinks = false

    @Flag(name: .customLong("skip-unreadable"), help: "Skip (and name on stderr) unreadable files, pipes, sockets and devices in trees instead of refusing the enqueue.")
    var skipUnreadable = false

    @Flag(name: .customLong("dry-run"), help: "Check everything and print what would be enqueued, skipped or refused (--json: one object per file); write nothing.")
    var dryRun = false

    /// True when any filter was given (filters apply to upload trees and `--format lines` uploads only).
    var filters: Bool { filter.filters }

    /// The filter the flags describe. Bad values are usage errors (exit 64) naming the flag and the fix.
    /// `relativeAges`: an age given as a span (`7d`) stays a span, counted back when the filter is applied (a
    /// schedule's tick), not from now; a date stays a date.
    func fileFilter(now: Date, relativeAges: Bool = false) throws -> FileFilter {
        try filter.fileFilter(now: now, relativeAges: relativeAges)
    }
}
