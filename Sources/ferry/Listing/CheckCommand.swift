import ArgumentParser
import FerryCore
import FerryWorker

/// `ferry check SOURCE DEST`: whether two folders hold the same files.
struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Compare two folders (any two providers, local folders too): missing, extra and different files.",
        discussion: ListingHelp.remotes + """


            Files are compared by path and size; with --checksum also by a content digest both sides state (an MD5, a \
            service's own content hash), a local folder being hashed to match the other side; with --download by \
            reading both sides (streamed, SHA-256). Same-size files that no digest tells apart are counted as \
            compared by size only (--download settles them).

            One line per file on stdout (rclone's --combined): = equal, - missing on DEST, + extra on DEST, \
            * different, ! could not be compared (the reason on stderr); a summary on stderr. Exit 0 when the \
            folders match, 1 when they differ, 74 when a file could not be read, other codes as for every command.

            check runs here, in the CLI, not as a job of the fleet: it is a read-only comparison of two listings \
            that answers at once, and it is bounded by listing pages and --max-entries, not by jobs.

            Examples:
              ferry check /srv/photos \(ListingHelp.example("photos"))
              ferry check /srv/photos \(ListingHelp.example("photos")) --checksum --differ-only
            """)

    @Argument(help: ArgumentHelp("The folder that should be copied.", valueName: "source"), completion: .directory)
    var source: String

    @Argument(help: ArgumentHelp("Where it should be.", valueName: "dest"), completion: .directory)
    var destination: String

    @Flag(help: "Also compare a content digest both sides state (or that a local side computes).")
    var checksum = false

    @Flag(help: "Compare the bytes of same-size files by reading both sides.")
    var download = false

    @Flag(name: .customLong("differ-only"), help: "Print only the files that are not equal.")
    var differOnly = false

    @Flag(name: .customLong("one-way"), help: "Leave out files only DEST holds (a backup that keeps more than SOURCE matches).")
    var oneWay = false

    @Option(help: ArgumentHelp("Files compared at once with --checksum or --download (1 to 64).", valueName: "n"))
    var checkers = 4

    @Flag(help: "One JSON object per file (JSON Lines): path and status (equal, missing, extra, different, error).")
    var json = false

    @OptionGroup var listing: ListingFlags

    func run() async throws {
        try await runListing {
            if checksum && download { throw CLIUsageError(message: "give --checksum or --download, not both (--download compares more)") }
            guard (1...64).contains(checkers) else { throw CLIUsageError(message: "--checkers takes 1 to 64") }
            let options = try listing.options(recursiveByDefault: true)
            let mode: TreeComparison.Mode = download ? .download : checksum ? .checksum : .size
            var outcome = try await ListingSession.with([source, destination], connection: listing.connection) { session in
                try await TreeComparison(
                    source: session.listings[0], destination: session.listings[1], mode: mode, options: options, checkers: checkers,
                    logger: session.logger
                ).run()
            }
            if oneWay { outcome.lines.removeAll { $0.mark == "+" } }
            report(differOnly ? outcome.lines.filter { $0.mark != "=" } : outcome.lines)
            let count = { (mark: Character) in outcome.lines.reduce(0) { $1.mark == mark ? $0 + 1 : $0 } }
            let (missing, extra, different, errors, equal) = (count("-"), count("+"), count("*"), count("!"), count("="))
            let differences = missing + extra + different
            var summary = "\(differences) difference\(differences == 1 ? "" : "s") found: \(missing) missing on the destination, \(extra) extra, \(different) different; \(equal) matching"
            if errors > 0 { summary += "; \(errors) could not be compared" }
            printError(summary)
            if outcome.unverified > 0 {
                printError("note: \(outcome.unverified) same-size file(s) compared by size only: the two sides state no content digest in common; give --download to compare their bytes")
            }
            if errors > 0 { throw ExitCode(ExitStatus.ioError) }
            if differences > 0 { throw ExitCode(ExitStatus.negative) }
        }
    }

    /// The report on stdout, a thousand lines a write: `MARK path` (terminal-safe), or JSON Lines.
    func report(_ lines: [TreeComparison.Line]) {
        let statuses: [Character: String] = ["=": "equal", "-": "missing", "+": "extra", "*": "different", "!": "error"]
        for start in stride(from: 0, to: lines.count, by: 1000) {
            TerminalOutput.standard.line(
                lines[start..<min(lines.count, start + 1000)].map { line in
                    json
                        ? JSONValue.object(["path": .string(line.path), "status": .string(statuses[line.mark] ?? "")]).jsonText(.asciiOnly, leadingKeys: ["path"])
                        : "\(line.mark) " + TablePrinter.printable(line.path)
                }.joined(separator: "\n"))
        }
    }
}
