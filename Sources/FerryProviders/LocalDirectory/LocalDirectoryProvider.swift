import FerryCore

/// Uploads into a local directory (a mounted NAS or volume): `file:///dir/`.
public struct LocalDirectoryProvider: ProviderDescriptor {
    public init() {}

    public var name: String { "file" }
    public var displayName: String { "local directory" }
    public var schemes: [String] { ["file"] }

    public func example(for kind: JobKind) -> String? {
        kind == .upload ? "file:///mnt/nas/photos/" : nil
    }

    public func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint {
        let folder = try FileURL.path(of: request.remote, field: "to", line: request.line)
        let path = folder.hasSuffix("/") ? folder + request.localName : folder
        return ResolvedEndpoint(source: request.local, destination: FileURL.text(of: path))
    }
}
