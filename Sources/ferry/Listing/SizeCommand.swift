import ArgumentParser
import FerryCore
import FerryWorker

/// `ferry size REMOTE`: how many files a folder holds and their bytes.
struct SizeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "size",
        abstract: "Count the files of a remote folder and their bytes, subfolders included.",
        discussion: ListingHelp.remotes + """


            Examples:
              ferry size \(ListingHelp.example("Camera"))
              ferry size /srv/photos --max-age 7d --json
            """)

    @Argument(help: ArgumentHelp("The folder to measure.", valueName: "remote"), completion: .directory)
    var remote: String

    @Flag(help: "One JSON object: count and bytes.")
    var json = false

    @OptionGroup var listing: ListingFlags

    func run() async throws {
        var count: Int64 = 0
        var bytes: Int64 = 0
        try await listing.eachPage(of: remote, recursiveByDefault: true) { entries in
            for entry in entries where !entry.isFolder {
                count += 1
                bytes += entry.size ?? 0
            }
        }
        if json {
            TerminalOutput.standard.line(JSONValue.object(["count": .int(count), "bytes": .int(bytes)]).jsonText)
        } else {
            TerminalOutput.standard.line("Total objects: \(count)\nTotal size: \(TablePrinter.bytes(bytes)) (\(bytes) bytes)")
        }
    }
}
