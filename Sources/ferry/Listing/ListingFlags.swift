import ArgumentParser
import FerryCore
import FerryWorker
import Foundation

/// Flags of the listing commands (`ls`, `lsf`, `size`, `check`): depth, bounds, the file filter and the
/// connection (the database and log level, for listing an account).
struct ListingFlags: ParsableArguments {
    @Flag(name: [.customShort("R"), .customLong("recursive")], help: "List every folder below too (ls, size and check do by default).")
    var recursive = false

    @Flag(name: .customLong("no-recursive"), help: "List the folder's own entries only.")
    var noRecursive = false

    @Option(name: .customLong("max-entries"), help: ArgumentHelp("Stop with an error after listing more than N entries (default 1000000).", valueName: "n"))
    var maxEntries = 1_000_000

    @Option(name: .customLong("max-depth"), help: ArgumentHelp("Stop with an error at folders more than N levels deep (default 100).", valueName: "n"))
    var maxDepth = 100

    @OptionGroup var filter: FilterFlags
    @OptionGroup var connection: ConnectionOptions

    /// The options of a listing; `recursiveByDefault` is the command's default.
    func options(recursiveByDefault: Bool) throws -> RemoteListOptions {
        guard maxEntries > 0, maxDepth > 0 else { throw CLIUsageError(message: "--max-entries and --max-depth must be at least 1") }
        if recursive && noRecursive { throw CLIUsageError(message: "give --recursive or --no-recursive, not both") }
        return RemoteListOptions(
            recursive: noRecursive ? false : recursive || recursiveByDefault, maxEntries: maxEntries, maxDepth: maxDepth,
            filter: try filter.fileFilter(now: Date()))
    }
}
