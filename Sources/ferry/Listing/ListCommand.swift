import ArgumentParser
import FerryWorker

/// `ferry ls REMOTE`: each file's size and path, every folder below included.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List the files of a remote folder (size and path), subfolders included.",
        discussion: ListingHelp.remotes + """


            Examples:
              ferry ls \(ListingHelp.example("Camera"))
              ferry ls /srv/photos --include '*.jpg' --json
              ferry ls /srv/photos --no-recursive
            """)

    @Argument(help: ArgumentHelp("The folder to list.", valueName: "remote"), completion: .directory)
    var remote: String

    @Flag(help: "One JSON object per entry (JSON Lines): path, is_dir, size, modified, hashes.")
    var json = false

    @OptionGroup var listing: ListingFlags
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runListing {
            let options = try listing.options(recursiveByDefault: true)
            try await ListingSession.with([remote], connection: connection) { session in
                try await session.listings[0].run(options: options, logger: session.logger) { entries in
                    let files = entries.filter { !$0.isFolder }
                    guard !files.isEmpty else { return }
                    TerminalOutput.standard.line(files.map { json ? ListingPrinter.json($0) : ListingPrinter.sizeAndPath($0) }.joined(separator: "\n"))
                }
            }
        }
    }
}
