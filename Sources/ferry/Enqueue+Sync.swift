import FerryCore
import FerryProviders
import FerryWorker
import Foundation

extension Enqueue {
    /// `sync SRC --to DEST/`: one job that copies SRC's files into DEST/ (a tree upload for a local folder, a
    /// folder copy for a remote one), then deletes what DEST/ holds that SRC no longer has (see `SyncMirror`).
    func syncCommandLine() throws -> (kind: JobKind, operands: [String], to: String, options: [String: OptionValue]) {
        let operands = Array(arguments.dropFirst())
        guard operands.count == 1, let source = operands.first else {
            throw CLIUsageError(message: operands.isEmpty
                ? "name the folder to sync: ferry enqueue sync SRC --to DEST/"
                : "sync mirrors one folder: give one SRC (a schedule or a second sync for another)")
        }
        guard let to else { throw CLIUsageError(message: "missing --to: say which folder mirrors \(source) (ending in /)") }
        guard to.hasSuffix("/") else {
            throw CLIUsageError(message: "a sync mirrors a folder into a folder: end --to with /")
        }
        if let maxDelete, maxDelete < 0 {
            throw ValidationIssue(field: "--max-delete", problem: "must be 0 or more, not \(maxDelete)", fix: "give 0 to delete nothing, or leave it out for no bound")
        }
        if key != nil || providerOptions.sha256 != nil {
            throw CLIUsageError(message: "\(key != nil ? "--key" : "--sha256") names one file; a sync mirrors a folder")
        }
        let scheme = EndpointSyntax.scheme(of: source)
        let local = scheme == nil || scheme == "file"
        let kind: JobKind = local ? .upload : .copy
        var given = try providerOptions.options(for: kind)
        for name in [SyncMirror.option.name, TreeUpload.option.name, ListingFilter.option.name] where given[name] != nil {
            throw CLIUsageError(message: "--option \(name)=… is what sync sets itself; leave it out")
        }
        // Changed files are replaced and unchanged ones skipped, as every copy of a tree does.
        if given["if_changed"] == nil { given["if_changed"] = .json(.bool(true)) }
        if local { given[TreeUpload.option.name] = .json(.bool(true)) }
        given[SyncMirror.option.name] = .json(.int(maxDelete ?? -1))
        if tree.filters {
            given[ListingFilter.option.name] = .commandLine(try tree.fileFilter(now: Date()).json.jsonText)
        }
        let folder = local || source.hasSuffix("/") ? source : source + "/"
        return (kind, [local && scheme == "file" ? try FileURL.path(of: source, field: "source", line: nil) : folder], to, given)
    }
}

extension Enqueue {
    /// `sync … --dry-run`: after the job's own check, what the run would do now, from listings of both sides (with
    /// the sync's filter): `copy` for a file the destination lacks, `replace` for one of another size, `delete` for
    /// one the source no longer has, and whether `--max-delete` would stop it. Same-size files are compared by
    /// content when the run copies (not here). Writes nothing; needs the secret key for accounts, as `ferry check`.
    func previewSync() async throws {
        let source = String(arguments.dropFirst().first ?? "")
        guard let destination = to else { return }
        var options = RemoteListOptions(recursive: true, filter: try tree.fileFilter(now: Date()))
        options.strict = true
        let lines = try await ListingSession.with([source, destination], connection: connection) { session in
            try await TreeComparison(
                source: session.listings[0], destination: session.listings[1], mode: .size, options: options, logger: session.logger
            ).run().lines
        }
        let fates: [Character: String] = ["-": "copy", "*": "replace", "+": "delete"]
        let shown = lines.compactMap { line in fates[line.mark].map { (fate: $0, path: line.path) } }
        let deletions = shown.count { $0.fate == "delete" }
        for (fate, path) in shown {
            print(self.options.json
                ? JSONValue.object(["fate": .string(fate), "path": .string(path)]).jsonText(.asciiOnly, leadingKeys: ["fate"])
                : "\(fate) \(TablePrinter.printable(path))")
        }
        var summary = "sync would copy \(shown.count { $0.fate == "copy" }), replace \(shown.count { $0.fate == "replace" }) and delete \(deletions) file(s)"
        if let maxDelete, deletions > Int(maxDelete) {
            summary += "; --max-delete \(maxDelete) would stop it before any deletion"
        }
        printError(summary)
    }
}
