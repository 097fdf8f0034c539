import FerryCore
import Crypto
import Foundation
import NIOCore
import Synchronization

/// Files served under `/web/`, standing in for any HTTPS server a user fetches from.
///
/// They live on disk under `<storage>/.web/` (files put there by hand are served too). New
/// versions are written beside and renamed into place, so a download that already opened the
/// old version keeps reading it. Validators come from `fstat`: the `ETag` combines inode, size
/// and modification time, and a replacement is dated at least one second after the version
/// it replaces, so both the `ETag` and `Last-Modified` change.
final class WebStore: Sendable {
    let root: String
    private let temporaryDirectory: String
    /// Status codes forced per path (e.g. 410), whether or not a file exists there.
    private let statuses = Mutex<[String: Int]>([:])
    /// Redirects per path: status (301, 302, 303, 307, 308) and `Location`, whether or not a file exists there.
    private let redirects = Mutex<[String: (status: Int, location: String)]>([:])

    init(storageRoot: String) throws {
        root = storageRoot + "/.web"
        temporaryDirectory = storageRoot + "/.devserver/web-tmp"
        let fm = FileManager.default
        try? fm.removeItem(atPath: temporaryDirectory)
        try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: temporaryDirectory, withIntermediateDirectories: true)
    }

    /// `a/b.jpg` from `a/b.jpg` or `/a/b.jpg`; `nil` for an empty path, empty, `.` or `..`
    /// components, or control characters, so nothing escapes the web root.
    static func normalize(_ path: String) -> String? {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        let components = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard !trimmed.isEmpty, components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }),
              !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        return trimmed
    }

    func diskPath(_ relative: String) -> String { root + "/" + relative }

    // MARK: Forced statuses

    func forcedStatus(_ relative: String) -> Int? { statuses.withLock { $0[relative] } }

    /// Forces `status` for the path; `nil` goes back to serving the file.
    func forceStatus(_ status: Int?, for relative: String) {
        statuses.withLock { $0[relative] = status }
    }

    func redirect(_ relative: String) -> (status: Int, location: String)? { redirects.withLock { $0[relative] } }

    /// Redirects the path to `location` with `status`; `nil` goes back to serving the file.
    func setRedirect(_ redirect: (status: Int, location: String)?, for relative: String) {
        redirects.withLock { $0[relative] = redirect }
    }

    // MARK: Validators

    /// Strong entity tag of one version of a file, quotes included.
    static func etag(_ status: DiskFile.Status) -> String {
        let nanoseconds = status.modifiedSeconds &* 1_000_000_000 &+ status.modifiedNanoseconds
        return "\"\(String(status.inode, radix: 16))-\(String(status.size, radix: 16))-\(String(nanoseconds, radix: 16))\""
    }

    /// `Content-Type` by extension, like a static web server.
    static func contentType(_ path: String) -> String {
        let ext = path.split(separator: "/").last?.split(separator: ".").dropFirst().last.map { $0.lowercased() } ?? ""
        switch ext {
        case "jpg", "jpeg": return "image/jpeg"
        case "png": return "image/png"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "txt": return "text/plain; charset=utf-8"
        case "html", "htm": return "text/html; charset=utf-8"
        case "json": return "application/json"
        case "pdf": return "application/pdf"
        case "zip": return "application/zip"
        case "mp4": return "video/mp4"
        case "mp3": return "audio/mpeg"
        default: return "application/octet-stream"
        }
    }

    // MARK: Writes

    /// Creates or replaces the file with `size` pseudo-random bytes fully determined by `seed`, dated `modified`
    /// (seconds since 1970) when given.
    func create(path relative: String, size: Int64, seed: UInt64, modified: Int64? = nil) throws -> WebFile {
        try write(relative, modified: modified) { file in
            var generator = SplitMix64(seed: seed)
            var hasher = SHA256()
            var offset: Int64 = 0
            while offset < size {
                let count = Int(min(Int64(1 << 20), size - offset))
                var buffer = ByteBufferAllocator().buffer(capacity: count)
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { raw in
                    var index = 0
                    while index + 8 <= count {
                        raw.storeBytes(of: generator.next().littleEndian, toByteOffset: index, as: UInt64.self)
                        index += 8
                    }
                    var last = index < count ? generator.next() : 0
                    while index < count {
                        raw[index] = UInt8(truncatingIfNeeded: last)
                        last >>= 8
                        index += 1
                    }
                    return count
                }
                buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                try file.write(buffer, at: offset)
                offset += Int64(count)
            }
            return Self.hex(hasher.finalize())
        }
    }

    /// Creates or replaces the file with the bytes `body` streams in.
    func store<Body: AsyncSequence>(path relative: String, body: Body, limit: Int64) async throws -> WebFile
    where Body.Element == ByteBuffer {
        let temporary = temporaryDirectory + "/" + RandomToken.make(bytes: 16)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        var hasher = SHA256()
        do {
            let file = try DiskFile.openForWriting(temporary, truncate: true)
            var offset: Int64 = 0
            for try await buffer in body {
                offset += Int64(buffer.readableBytes)
                guard offset <= limit else { throw BodyTooLarge() }
                try file.write(buffer, at: offset - Int64(buffer.readableBytes))
                buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            }
        }
        return try install(temporary, as: relative, sha256: Self.hex(hasher.finalize()))
    }

    /// Creates or replaces the file with exactly `contents`.
    func store(path relative: String, contents: [UInt8]) throws -> WebFile {
        try write(relative) { file in
            try file.write(ByteBuffer(bytes: contents), at: 0)
            return Self.hex(SHA256.hash(data: contents))
        }
    }

    /// Removes the file; `false` if there was none.
    func remove(path relative: String) -> Bool {
        (try? FileManager.default.removeItem(atPath: diskPath(relative))) != nil
    }

    /// Writes a new version through `fill` (which returns the SHA-256) and installs it.
    private func write(_ relative: String, modified: Int64? = nil, fill: (DiskFile) throws -> String) throws -> WebFile {
        let temporary = temporaryDirectory + "/" + RandomToken.make(bytes: 16)
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        let sha256 = try fill(try DiskFile.openForWriting(temporary, truncate: true))
        return try install(temporary, as: relative, sha256: sha256, modified: modified)
    }

    /// Dates the new version after the one it replaces and renames it into place.
    private func install(_ temporary: String, as relative: String, sha256: String, modified given: Int64? = nil) throws -> WebFile {
        let destination = diskPath(relative)
        let file = try DiskFile.openForReading(temporary)
        var modified = given ?? Int64(Date().timeIntervalSince1970)
        if given == nil, let previous = try? DiskFile.openForReading(destination).status() {
            // Whole seconds are all Last-Modified can say: the new version must differ there too.
            modified = max(modified, previous.modifiedSeconds + 1)
        }
        try file.setModificationTime(seconds: modified)
        let parent = (destination as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw DevServerError("cannot create the folder for \(relative): a file is in the way")
        }
        guard rename(temporary, destination) == 0 else {
            throw DevServerError("cannot store \(relative): errno \(errno)")
        }
        let status = try file.status()
        return WebFile(path: relative, size: status.size, etag: Self.etag(status),
                       lastModified: HTTPDate.format(epochSeconds: status.modifiedSeconds), sha256: sha256)
    }

    private static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
