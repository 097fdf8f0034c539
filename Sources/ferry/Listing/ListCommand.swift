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

    func run() async throws {
        try await listing.eachPage(of: remote, recursiveByDefault: true) { entries in
            let files = entries.filter { !$0.isFolder }
            guard !files.isEmpty else { return }
            TerminalOutput.standard.line(files.map { json ? ListingPrinter.json($0) : ListingPrinter.sizeAndPath($0) }.joined(separator: "\n"))
        }
    }
}
