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

    func example(for kind: JobKind) -> String? {
        kind == .upload ? "memory:ACCOUNT:/key" : nil
    }

    func options(for kind: JobKind) -> [ProviderOption] {
        [Self.label.declaration, Self.copies.declaration]
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
        let details = MemoryUploadDetails(label: request.options[Self.label], copies: request.options[Self.copies] ?? 1)
        return ResolvedEndpoint(
            source: request.local, destination: request.remote, account: account, accountProvider: name, typedDetails: details)
    }
}
