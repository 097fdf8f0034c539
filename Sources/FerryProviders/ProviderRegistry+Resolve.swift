import FerryCore
import Foundation

extension ProviderRegistry: JobEndpointResolver {
    public func resolve(
        kind: JobKind, remote: String, local: String, options: [String: OptionValue], jobID: UUID, line: Int?
    ) throws(ValidationIssue) -> ResolvedEndpoint {
        let field = kind == .upload ? "to" : "source"
        let plural = kind == .upload ? "uploads" : "fetches"
        let examples = examples(for: kind)
        guard let provider = provider(for: remote) else {
            let what = kind == .upload ? "an upload destination" : "a fetch source"
            throw ValidationIssue(
                line: line, field: field,
                problem: EndpointSyntax.scheme(of: remote).map { "no provider takes '\($0):' as \(what)" } ?? "not \(what)",
                fix: "write one of: " + examples.joined(separator: ", "))
        }
        guard provider.example(for: kind) != nil else {
            throw ValidationIssue(
                line: line, field: field, problem: "\(provider.displayName) takes no \(plural)",
                fix: "write one of: " + examples.joined(separator: ", "))
        }
        let checked = try ProviderOptions.checked(
            options, declared: declaredOptions(provider, for: kind), for: "\(provider.displayName) \(plural)", line: line)
        var resolved = try provider.resolve(
            EndpointRequest(kind: kind, remote: remote, local: local, options: checked, jobID: jobID, line: line))
        Self.applyExisting(checked[ExistingFilePolicy.option], to: &resolved)
        let tree = checked[TreeUpload.option] == true
        if tree { resolved.details[TreeUpload.specKey] = .bool(true) }
        try Self.applyFilter(
            checked[ListingFilter.option], to: &resolved, what: kind == .upload ? "upload" : "fetch", lists: resolved.fansOut || tree, line: line)
        try Self.applySync(checked[SyncMirror.option], to: &resolved, folder: tree, line: line)
        return resolved
    }
}

extension ProviderRegistry {
    /// A copy between providers: the source as its provider reads it (a file, or a folder the worker lists), the
    /// destination as its provider takes an upload (a folder destination ends in `/` and gets the source's name),
    /// the destination's upload options, and for a folder the listing filter. The job's account is the
    /// destination's (its cap and limits govern the writes); the source's account travels in the details.
    public func resolveCopy(
        source: String, destination: String, options: [String: OptionValue], jobID: UUID, line: Int?
    ) throws(ValidationIssue) -> ResolvedEndpoint {
        let sources = examples(for: .copy)
        guard let from = provider(for: source), from.example(for: .copy) != nil else {
            throw ValidationIssue(
                line: line, field: "source",
                problem: EndpointSyntax.scheme(of: source).map { "no provider copies from '\($0):'" } ?? "not a copy source",
                fix: "write one of: " + sources.joined(separator: ", ") + (EndpointSyntax.scheme(of: source) == nil
                    ? " (a local file is uploaded: ferry enqueue upload)" : ""))
        }
        guard let to = provider(for: destination), to.example(for: .upload) != nil, to.example(for: .copy) != nil else {
            let local = EndpointSyntax.scheme(of: destination) == nil || EndpointSyntax.scheme(of: destination) == "file"
            throw ValidationIssue(
                line: line, field: "to",
                problem: local ? "a copy goes to another provider, not a local folder" : "no provider takes copies to '\(EndpointSyntax.scheme(of: destination) ?? destination)'",
                fix: local ? "bring files to a local folder with ferry enqueue fetch SOURCE --to DIR/"
                    : "write one of: " + providers.filter { $0.example(for: .copy) != nil }.compactMap { $0.example(for: .upload) }.joined(separator: ", "))
        }
        let checked = try ProviderOptions.checked(
            options, declared: declaredOptions(to, for: .copy) + from.options(for: .copy),
            for: "copies to \(to.displayName)", line: line)
        let read = try from.resolve(EndpointRequest(kind: .copy, remote: source, local: "", options: checked, jobID: jobID, line: line))
        let name = read.source.split(separator: "/").last.map(String.init) ?? ""
        if read.fansOut {
            guard destination.hasSuffix("/") else {
                throw ValidationIssue(
                    line: line, field: "to", problem: "a folder is copied into a folder",
                    fix: "end the destination with / (for example " + (to.example(for: .upload) ?? "a folder/") + ")")
            }
        }
        // A folder's destination is resolved as the upload of one file into it would be; the job keeps the folder.
        let probe = "ferry-copy-probe"
        var written = try to.resolve(EndpointRequest(
            kind: .upload, remote: destination, local: "/" + (read.fansOut ? probe : name), options: checked, jobID: jobID, line: line))
        if read.fansOut {
            guard written.destination.hasSuffix(probe) else {
                throw ValidationIssue(line: line, field: "to", problem: "the destination does not name a folder", fix: "end the destination with /")
            }
            written.destination = String(written.destination.dropLast(probe.count))
        }
        if read.source == written.destination {
            throw ValidationIssue(line: line, field: "to", problem: "the copy would write over its own source", fix: "copy to another place")
        }
        // A folder copied into itself would list its own copies as it goes (as the destination compares paths).
        let folder = to.pathsIgnoreCase ? read.source.lowercased() : read.source
        let target = to.pathsIgnoreCase ? written.destination.lowercased() : written.destination
        if read.fansOut && target.hasPrefix(folder) {
            throw ValidationIssue(
                line: line, field: "to", problem: "the destination is inside the folder being copied",
                fix: "copy to a folder outside \(read.source)")
        }
        var resolved = ResolvedEndpoint(
            source: read.source, destination: written.destination, account: written.account,
            accountProvider: written.accountProvider, fansOut: read.fansOut, details: written.details)
        resolved.details[CopySourceDetails.specKey] = .object(read.details)
        resolved.sourceAccount = read.account
        resolved.sourceAccountProvider = read.accountProvider
        Self.applyExisting(checked[ExistingFilePolicy.option], to: &resolved)
        try Self.applyFilter(checked[ListingFilter.option], to: &resolved, what: "copy", lists: resolved.fansOut, line: line)
        try Self.applySync(checked[SyncMirror.option], to: &resolved, folder: resolved.fansOut, line: line)
        return resolved
    }

    /// The policy for a file already at the destination travels in the details when it is not the default (a
    /// folder's or a tree's children carry it with the rest).
    static func applyExisting(_ policy: String?, to resolved: inout ResolvedEndpoint) {
        if let policy, policy != ExistingFilePolicy.replace.rawValue {
            resolved.details[ExistingFilePolicy.specKey] = .string(policy)
        }
    }

    /// A listing filter (option `filter`, as the filter flags write it) goes with a job that lists a folder
    /// (`lists`); a job of one file has nothing to choose from.
    static func applyFilter(
        _ text: String?, to resolved: inout ResolvedEndpoint, what: String, lists: Bool, line: Int?
    ) throws(ValidationIssue) {
        guard let text else { return }
        // Bounded before anything is compiled: a producer writes this option (README, Security).
        guard text.utf8.count <= FileFilter.maxJSONBytes, let json = try? JSONValue.parse(text) else {
            throw ValidationIssue(
                line: line, field: ListingFilter.option.name,
                problem: text.utf8.count > FileFilter.maxJSONBytes ? "longer than \(FileFilter.maxJSONBytes) bytes" : "not a file filter",
                fix: "give filters with --include, --exclude and the size and age flags")
        }
        let filter: FileFilter
        do throws(ValidationIssue) {
            filter = try FileFilter.parsed(json: json)
        } catch {
            throw ValidationIssue(line: line, field: ListingFilter.option.name, problem: error.problem, fix: error.fix)
        }
        guard lists else {
            throw ValidationIssue(
                line: line, field: "filters", problem: "a\(what == "upload" ? "n" : "") \(what) of one file has nothing to choose from",
                fix: "use filters with a folder or a prefix: a source ending in /")
        }
        if !filter.isEmpty { resolved.details[ListingFilter.specKey] = filter.json }
    }

    /// A sync (option `sync`) mirrors a folder: a tree upload's or a folder copy's. Its run is a batch of its own
    /// (named after the job unless given), which its deletions wait for.
    static func applySync(_ maxDelete: Int64?, to resolved: inout ResolvedEndpoint, folder: Bool, line: Int?) throws(ValidationIssue) {
        guard let maxDelete else { return }
        guard folder else {
            throw ValidationIssue(
                line: line, field: SyncMirror.option.name, problem: "a sync mirrors a folder, not one file",
                fix: "name the source folder (ending in /): ferry enqueue sync SRC/ --to DEST/")
        }
        resolved.details[SyncMirror.specKey] = SyncMirror.details(maxDelete: maxDelete)
        resolved.fansOut = true
    }
}
