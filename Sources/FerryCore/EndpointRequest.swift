import Foundation

/// What a provider is asked to check: the remote side of one job and the local path on the other side.
public struct EndpointRequest: Sendable {
    public var kind: JobKind
    /// Upload: the destination as given (`dropbox:ACCOUNT:/path`, `file:///dir/` …). Fetch and copy: the source as
    /// given (a copy's destination is resolved as an upload's).
    public var remote: String
    /// Upload: the source file's absolute path. Fetch: the absolute target path (a trailing `/` means a folder).
    /// Copy: empty.
    public var local: String
    /// The options the caller gave, already checked against the provider's declarations.
    public var options: ProviderOptions
    public var jobID: UUID
    /// The field of the remote side in error text: `to` for uploads, `source` for fetches.
    public var remoteField: String { kind == .upload ? "to" : "source" }
    /// The JSON Lines line, for error text.
    public var line: Int?

    public init(kind: JobKind, remote: String, local: String, options: ProviderOptions, jobID: UUID, line: Int?) {
        self.kind = kind
        self.remote = remote
        self.local = local
        self.options = options
        self.jobID = jobID
        self.line = line
    }

    /// A refusal of `field` located at this request's line.
    public func issue(_ field: String, _ problem: String, _ fix: String) -> ValidationIssue {
        ValidationIssue(line: line, field: field, problem: problem, fix: fix)
    }

    /// The last path component of the local side (an upload source's file name).
    public var localName: String { String(local.split(separator: "/").last ?? "") }
}
