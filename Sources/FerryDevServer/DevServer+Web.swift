/// Seeding the plain web files served at `/web/{path}`.
extension DevServer {
    /// Creates or replaces `path` (e.g. `a/b.jpg`, served at `/web/a/b.jpg`) with `size`
    /// pseudo-random bytes fully determined by `seed`. A replacement gets a new `ETag` and a
    /// later `Last-Modified`. Also `POST /__dev/web`.
    @discardableResult
    public func createWebFile(path: String, size: Int64, seed: UInt64 = 0) throws -> WebFile {
        guard let relative = WebStore.normalize(path) else { throw DevServerError("invalid web path \(path)") }
        guard size >= 0 else { throw DevServerError("size must not be negative") }
        return try backend.web.create(path: relative, size: size, seed: seed)
    }

    /// Creates or replaces `path` with exactly these bytes. Also `PUT /__dev/web/{path}`.
    @discardableResult
    public func storeWebFile(path: String, contents: [UInt8]) throws -> WebFile {
        guard let relative = WebStore.normalize(path) else { throw DevServerError("invalid web path \(path)") }
        return try backend.web.store(path: relative, contents: contents)
    }

    /// Makes `path` answer `status` (e.g. 410 Gone) whether or not a file exists there;
    /// `nil` serves the file again. Also `POST /__dev/web/status`.
    public func setWebStatus(path: String, status: Int?) throws {
        guard let relative = WebStore.normalize(path) else { throw DevServerError("invalid web path \(path)") }
        backend.web.forceStatus(status, for: relative)
    }

    /// `http://host:port/web` once running.
    public var webBaseURL: String? { baseURL.map { $0 + "/web" } }
}
