import FerryCore
import Crypto
import Foundation
import Synchronization

/// Seeded Flickr users and their photos.
///
/// Only `(user id, count, total_as)` is kept (in `.devserver/flickr-users.json`, so users
/// survive restarts); photos are generated from it. Photo sizes are rendered on first request
/// into `.devserver/flickr-cache/` and served from disk afterwards.
final class FlickrStore: Sendable {
    /// Largest photo stream one user may have (ids leave room for a million per user).
    static let maxPhotosPerUser = 1_000_000

    private struct State: Sendable {
        var users: [String: FlickrUser] = [:]
        /// `{id}_{secret}` → (user, index): photo URLs carry both, so two users whose ids
        /// happen to collide are still told apart by the secret.
        var photoIndex: [String: PhotoRef] = [:]
        var rendered: [String: RenderedPhoto] = [:]
    }

    private struct PhotoRef: Sendable {
        var userID: String
        var index: Int
    }

    private let state = Mutex(State())
    private let registryPath: String
    private let cacheDirectory: String

    init(storageRoot: String) throws {
        registryPath = storageRoot + "/.devserver/flickr-users.json"
        cacheDirectory = storageRoot + "/.devserver/flickr-cache"
        let fm = FileManager.default
        try? fm.removeItem(atPath: cacheDirectory)
        try fm.createDirectory(atPath: cacheDirectory, withIntermediateDirectories: true)
        if let data = fm.contents(atPath: registryPath), let json = try? JSONValue.parse(utf8: Array(data)) {
            for user in (json.arrayValue ?? []).compactMap(FlickrUser.init(json:)) {
                state.withLock { Self.install(user, into: &$0) }
            }
        }
    }

    /// Creates or replaces a user; returns the whole photo stream.
    func seed(_ user: FlickrUser) throws -> [FlickrPhoto] {
        guard (0...Self.maxPhotosPerUser).contains(user.count) else {
            throw DevServerError("count must be between 0 and \(Self.maxPhotosPerUser)")
        }
        guard !user.userID.isEmpty else { throw DevServerError("user_id must not be empty") }
        let registry = state.withLock { state -> JSONValue in
            if let previous = state.users[user.userID] {
                for index in 0..<previous.count {
                    let photo = FlickrPhoto.generate(userID: previous.userID, index: index)
                    state.photoIndex[photo.id + "_" + photo.secret] = nil
                }
            }
            Self.install(user, into: &state)
            return .array(state.users.keys.sorted().compactMap { state.users[$0]?.json })
        }
        try Data(registry.jsonText.utf8).write(to: URL(fileURLWithPath: registryPath), options: .atomic)
        return photos(of: user, from: 0, count: user.count)
    }

    private static func install(_ user: FlickrUser, into state: inout State) {
        state.users[user.userID] = user
        for index in 0..<user.count {
            let photo = FlickrPhoto.generate(userID: user.userID, index: index)
            state.photoIndex[photo.id + "_" + photo.secret] = PhotoRef(userID: user.userID, index: index)
        }
    }

    func user(_ userID: String) -> FlickrUser? { state.withLock { $0.users[userID] } }

    /// Up to `count` photos of the stream starting at `from` (fewer, or none, past the end).
    func photos(of user: FlickrUser, from start: Int, count: Int) -> [FlickrPhoto] {
        guard start < user.count, count > 0 else { return [] }
        return (start..<min(user.count, start + count)).map { FlickrPhoto.generate(userID: user.userID, index: $0) }
    }

    /// The photo a URL names, or `nil` for an unknown id or a wrong secret.
    func photo(id: String, secret: String) -> FlickrPhoto? {
        guard let ref = state.withLock({ $0.photoIndex[id + "_" + secret] }) else { return nil }
        return FlickrPhoto.generate(userID: ref.userID, index: ref.index)
    }

    /// The rendered JPEG of one size, from the cache or rendered now. Two requests racing for
    /// the same size both render; the rename makes either result the cached one.
    func rendered(_ photo: FlickrPhoto, size: FlickrPhotoSize) throws -> RenderedPhoto {
        let key = "\(photo.id)_\(photo.secret)_\(size.rawValue.isEmpty ? "-" : size.rawValue)"
        if let cached = state.withLock({ $0.rendered[key] }) { return cached }
        let (width, height) = photo.dimensions(size)
        let bytes = ThumbnailRenderer.photo(width: width, height: height, seed: photo.pixelSeed)
        let digest = SHA256.hash(data: bytes).prefix(12).map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        let path = cacheDirectory + "/" + key + ".jpg"
        let temporary = path + "." + RandomToken.make(bytes: 8)
        try Data(bytes).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            throw DevServerError("cannot cache photo \(key): errno \(errno)")
        }
        let rendered = RenderedPhoto(diskPath: path, etag: "\"\(digest)\"")
        state.withLock { $0.rendered[key] = rendered }
        return rendered
    }
}
