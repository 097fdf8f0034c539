import FerryCore

/// Uploads into a local directory (a mounted NAS or volume): `file:///dir/`.
public struct LocalDirectoryProvider: ProviderDescriptor {
    public init() {}

    public var name: String { "file" }
    public var displayName: String { "local directory" }
    public var schemes: [String] { ["file"] }
    public var metricLabel: String { "local" }

    public func example(for kind: JobKind) -> String? {
        kind == .upload ? "file:///mnt/nas/photos/" : nil
    }

    /// Upload options.
    public static let ifChanged: TypedProviderOption<Bool> = .boolean(
        "if_changed", help: "Skip the copy when the destination holds the same content (same size, compared byte for byte); a changed file is replaced (renamed over whole). Without it a different file there fails the job.")

    public func options(for kind: JobKind) -> [ProviderOption] {
        kind == .upload ? [Self.ifChanged.declaration] : []
    }

    public func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint {
        let folder = try FileURL.path(of: request.remote, field: "to", line: request.line)
        let path = folder.hasSuffix("/") ? folder + request.localName : folder
        guard request.options[Self.ifChanged] == true else {
            return ResolvedEndpoint(source: request.local, destination: FileURL.text(of: path))
        }
        return ResolvedEndpoint(
            source: request.local, destination: FileURL.text(of: path), typedDetails: LocalDirectoryUploadDetails(ifChanged: true))
    }
}
