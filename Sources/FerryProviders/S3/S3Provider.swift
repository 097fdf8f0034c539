import FerryCore

/// Any S3-compatible store (AWS S3, MinIO, Ceph, R2, Backblaze B2): uploads to and fetches from
/// `s3:ACCOUNT:bucket/key`. The account holds the access keys, the region and the endpoint.
public struct S3Provider: ProviderDescriptor {
    public init() {}

    public var name: String { "s3" }
    public var displayName: String { "S3" }
    public var schemes: [String] { ["s3"] }

    static let storageClasses = [
        "STANDARD", "STANDARD_IA", "ONEZONE_IA", "INTELLIGENT_TIERING", "GLACIER_IR", "GLACIER", "DEEP_ARCHIVE",
        "REDUCED_REDUNDANCY",
    ]

    public func example(for kind: JobKind) -> String? {
        kind == .upload ? "s3:ACCOUNT:bucket/photos/" : kind == .copy ? "s3:ACCOUNT:bucket/photos/ (a prefix) or bucket/photos/a.jpg" : "s3:ACCOUNT:bucket/photos/a.jpg"
    }

    /// Upload options.
    public static let storageClass: TypedProviderOption<String> = .choice(
        "storage_class", storageClasses, help: "The object's storage class. Default: the bucket's (STANDARD).")
    public static let contentType: TypedProviderOption<String> = .string(
        "content_type", help: "The object's Content-Type. Default: from the file name's extension (image/jpeg for .jpg …), else application/octet-stream.")
    public static let ifChanged: TypedProviderOption<Bool> = .boolean(
        "if_changed", help: "Skip the upload when the object holds the same content (size, and MD5 or the stored modification time).")

    /// Fetch options.
    public static let sha256: TypedProviderOption<String> = .string(
        "sha256", help: "Expected SHA-256 of a single object; a mismatch fails the job.")
    public static let recursive: TypedProviderOption<Bool> = .boolean(
        "recursive", help: "Prefixes: include keys below further / separators.")
    public static let pageSize: TypedProviderOption<Int64> = .integer(
        "page_size", 1...1000, help: "Prefixes: keys per ListObjectsV2 page. Default: 1000.")

    public func options(for kind: JobKind) -> [ProviderOption] {
        switch kind {
        case .upload: [Self.storageClass.declaration, Self.contentType.declaration, Self.ifChanged.declaration]
        case .fetch: [Self.sha256.declaration, Self.recursive.declaration, Self.pageSize.declaration]
        case .copy: []
        }
    }

    public func resolve(_ request: EndpointRequest) throws(ValidationIssue) -> ResolvedEndpoint {
        let location = try S3Location(request.remote, field: request.remoteField, line: request.line)
        let options = request.options
        switch request.kind {
        case .copy:
            // A prefix is copied whole (every key below it, as rclone copy does); one object by itself.
            return ResolvedEndpoint(
                source: location.text, destination: "", account: location.account, accountProvider: name,
                fansOut: location.isPrefix,
                typedDetails: CopySourceDetails(provider: name, account: location.account, folder: location.isPrefix ? true : nil))
        case .upload:
            let key = location.isPrefix ? location.key + request.localName : location.key
            guard !key.isEmpty, key.utf8.count <= S3Location.maxKeyBytes else {
                throw request.issue("to", "the object key would be empty or longer than 1024 bytes", "name the object: s3:ACCOUNT:bucket/folder/name")
            }
            if let type = options[Self.contentType], type.isEmpty || type.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value >= 0x7F }) {
                throw request.issue(Self.contentType.name, "must be a printable ASCII media type", "for example content_type=image/jpeg")
            }
            let details = S3UploadDetails(
                storageClass: options[Self.storageClass], contentType: options[Self.contentType],
                ifChanged: options[Self.ifChanged] == true ? true : nil)
            return ResolvedEndpoint(
                source: request.local, destination: S3Location(account: location.account, bucket: location.bucket, key: key).text,
                account: location.account, accountProvider: name, typedDetails: details)
        case .fetch:
            let sha256 = try options[Self.sha256].map { text throws(ValidationIssue) in
                try EndpointSyntax.sha256Hex(text, field: Self.sha256.name, line: request.line)
            }
            var destination = request.local
            if location.isPrefix {
                if sha256 != nil { throw request.issue(Self.sha256.name, "a prefix has no single checksum", "give sha256 for one object only") }
                if !destination.hasSuffix("/") { destination += "/" }
            } else {
                for name in [Self.recursive.name, Self.pageSize.name] where options[name] != nil {
                    throw request.issue(name, "is for prefixes (keys ending in /)", "remove it, or end the key with /")
                }
                if destination.hasSuffix("/") {
                    let last = location.key.split(separator: "/").last.map(String.init) ?? ""
                    guard let file = SafePath.component(last) else {
                        throw request.issue("to", "the key's last part is not a usable file name", "give --to a full file path")
                    }
                    destination += file
                }
            }
            let details = S3FetchDetails(
                root: location.isPrefix ? destination : SafePath.directory(of: destination),
                recursive: options[Self.recursive] == true ? true : nil,
                requestedPageSize: options[Self.pageSize], sha256: sha256)
            return ResolvedEndpoint(
                source: location.text, destination: destination, account: location.account, accountProvider: name,
                fansOut: location.isPrefix, typedDetails: details)
        }
    }
}
