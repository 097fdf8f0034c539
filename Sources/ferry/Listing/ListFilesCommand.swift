import ArgumentParser
import FerryWorker

/// `ferry lsf REMOTE`: the paths of a folder's entries, folders ending in `/`, for scripts.
struct ListFilesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lsf",
        abstract: "List a remote folder's files and folders (folders end in /), one level unless --recursive.",
        discussion: ListingHelp.remotes + """


            --format picks the fields, in order: p path, s size (-1 for a folder), t modification time (UTC), h the \
            content digests the provider states (kind:value, comma-separated); --separator joins them (default ;).

            Examples:
              ferry lsf \(ListingHelp.example("Camera"))
              ferry lsf /srv/photos -R --format pst
            """)

    @Argument(help: ArgumentHelp("The folder to list.", valueName: "remote"), completion: .directory)
    var remote: String

    @Option(help: ArgumentHelp("Fields to print: letters p (path), s (size), t (time), h (digests).", valueName: "letters"))
    var format = "p"

    @Option(help: ArgumentHelp("Text between fields.", valueName: "text"))
    var separator = ";"

    @Flag(name: .customLong("files-only"), help: "Leave folders out.")
    var filesOnly = false

    @Flag(help: "One JSON object per entry (JSON Lines): path, is_dir, size, modified, hashes.")
    var json = false

    @OptionGroup var listing: ListingFlags

    func run() async throws {
        try await runListing { try ListingPrinter.checkFormat(format) }
        let separator = TablePrinter.printable(separator)
        try await listing.eachPage(of: remote, recursiveByDefault: false) { entries in
            let shown = filesOnly ? entries.filter { !$0.isFolder } : entries
            guard !shown.isEmpty else { return }
            TerminalOutput.standard.line(
                shown.map { json ? ListingPrinter.json($0) : ListingPrinter.fields($0, format: format, separator: separator) }
                    .joined(separator: "\n"))
        }
    }
}
