import FerryCore
import FerryProviders

/// A provider that exists only in the tests, to show what adding one takes: this folder, plus one line in a
/// registry. Uploads to `memory:ACCOUNT:/key`, with one typed option.
struct MemoryProvider: ProviderDescriptor {
    var name: String { "memory" }
    var displayName: String { "Memory" }
    var schemes: [String] { ["memory"] }

    /// How the uploaded copy is tagged: declared once, read typed in ``resolve(_:)``, listed in help from here.
    static let label: TypedProviderOption<String> = .string("label", help: "A tag kept with the stored copy.")
    static let copies: TypedProviderOption<Int64> = .integer("copies", 1...3, help: "How many copies to keep. Default: 1.")
    static let ifChanged: TypedProviderOption<Bool> = .boolean("if_changed", help: "Skip what the destination holds already.")

    func example(for kind: JobKind) -> String? {
        kind == .fetch ? nil : "memory:ACCOUNT:/key"
    }

    func options(for kind: JobKind) -> [ProviderOption] {
        kind == .upload ? [Self.label.declaration, Self.copies.declaration, Self.ifChanged.declaration] : []
    }

    func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint {
        let rest = request.remote.dropFirst("memory:".count)
        guard let colon = rest.firstIndex(of: ":"), rest[rest.index(after: colon)...].hasPrefix("/") else {
            throw request.issue(request.remoteField, "not memory:ACCOUNT:/key", "write memory:ACCOUNT:/key")
        }
        let account = String(rest[..<colon])
        guard EndpointSyntax.isValidAccountName(account) else {
            throw EndpointSyntax.accountNameIssue(field: request.remoteField, line: request.line)
        }
        if request.kind == .copy {
            // As a copy source: a key ending in / is a folder, listed into one copy per key below it.
            let folder = request.remote.hasSuffix("/")
            return ResolvedEndpoint(
                source: request.remote, destination: "", account: account, accountProvider: name, fansOut: folder,
                typedDetails: CopySourceDetails(provider: name, account: account, folder: folder ? true : nil))
        }
        let details = MemoryUploadDetails(
            label: request.options[Self.label], copies: request.options[Self.copies] ?? 1, ifChanged: request.options[Self.ifChanged])
        // A destination ending in / is a folder: the file keeps its name there.
        let destination = request.remote.hasSuffix("/") ? request.remote + request.localName : request.remote
        return ResolvedEndpoint(
            source: request.local, destination: destination, account: account, accountProvider: name, typedDetails: details)
    }
}
