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
        // Every fetch writes a local file, so every fetch provider takes the policy for one already there.
        let common = kind == .fetch
            ? [ExistingFilePolicy.option.declaration, ListingFilter.option.declaration] : [TreeUpload.option.declaration]
        let checked = try ProviderOptions.checked(
            options, declared: provider.options(for: kind) + common, for: "\(provider.displayName) \(plural)", line: line)
        var resolved = try provider.resolve(
            EndpointRequest(kind: kind, remote: remote, local: local, options: checked, jobID: jobID, line: line))
        if let policy = checked[ExistingFilePolicy.option], policy != ExistingFilePolicy.replace.rawValue {
            resolved.details[ExistingFilePolicy.specKey] = .string(policy)
        }
        if checked[TreeUpload.option] == true { resolved.details[TreeUpload.specKey] = .bool(true) }
        if let text = checked[ListingFilter.option] {
            guard let filter = (try? JSONValue.parse(text)).flatMap(FileFilter.init(json:)) else {
                throw ValidationIssue(line: line, field: ListingFilter.option.name, problem: "not a file filter", fix: "give filters with --include, --exclude and the size and age flags")
            }
            guard resolved.fansOut else {
                throw ValidationIssue(
                    line: line, field: "filters", problem: "a fetch of one file has nothing to choose from",
                    fix: "use filters with a folder (Dropbox) or a prefix ending in / (S3)")
            }
            if !filter.isEmpty { resolved.details[ListingFilter.specKey] = filter.json }
        }
        return resolved
    }
}
