/// A file served by the dev server under `/web/`, as created or replaced through
/// ``DevServer/createWebFile(path:size:seed:)``, ``DevServer/storeWebFile(path:contents:)``,
/// `POST /__dev/web` or `PUT /__dev/web/{path}`.
public struct WebFile: Sendable, Equatable {
    /// Path under `/web/`, without a leading slash (`a/b.jpg` is served at `/web/a/b.jpg`).
    public var path: String
    /// Size in bytes.
    public var size: Int64
    /// The strong `ETag` the server sends for this version, quotes included.
    public var etag: String
    /// The `Last-Modified` the server sends for this version.
    public var lastModified: String
    /// SHA-256 of the content, lowercase hex.
    public var sha256: String

    /// Creates a description (the server makes these; tests may compare against them).
    public init(path: String, size: Int64, etag: String, lastModified: String, sha256: String) {
        self.path = path
        self.size = size
        self.etag = etag
        self.lastModified = lastModified
        self.sha256 = sha256
    }
}
