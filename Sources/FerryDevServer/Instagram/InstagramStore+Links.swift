import Crypto
import FerryCore
import Foundation

/// Signed CDN links, as Instagram's: `/ig-cdn/NAME?oe=EXPIRY_HEX&_e=EPOCH&oh=SIGNATURE`. A link is refused (403)
/// once its time is up, after ``InstagramStore/expireLinks()``, or when any part was changed.
extension InstagramStore {
    /// The CDN path of an item's bytes or cover.
    static func cdnPath(id: String, video: Bool, thumbnail: Bool) -> String {
        "/ig-cdn/" + id + (thumbnail ? "_thumb.jpg" : video ? ".mp4" : ".jpg")
    }

    /// A link to `path` under `origin`, valid for the store's link lifetime.
    func signedLink(origin: String, path: String) -> String {
        let (epoch, lifetime) = state.withLock { ($0.linkEpoch, $0.linkLifetime) }
        let expiry = String(Int64(clock.now + lifetime), radix: 16)
        return origin + path + "?oe=\(expiry)&_e=\(epoch)&oh=\(signature(path: path, expiry: expiry, epoch: epoch))"
    }

    /// Whether `query` (of a request for `path`) is a valid, unexpired signature of it.
    func checkLink(path: String, query: [String: String]) -> Bool {
        guard let expiry = query["oe"], let epochText = query["_e"], let epoch = Int(epochText), let given = query["oh"],
            let seconds = Int64(expiry, radix: 16)
        else { return false }
        let current = state.withLock { $0.linkEpoch }
        let valid = given == signature(path: path, expiry: expiry, epoch: epoch) && epoch == current && Double(seconds) > clock.now
        if !valid { record { $0.expiredLinks += 1 } }
        return valid
    }

    private func signature(path: String, expiry: String, epoch: Int) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(path)|\(expiry)|\(epoch)".utf8), using: signingKey)
        return mac.prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    /// The item behind a CDN name (`ID.jpg`, `ID.mp4`, `ID_thumb.jpg`): its bytes, or `nil` for an unknown one.
    func cdnContent(name: String) -> [UInt8]? {
        let thumbnail = name.hasSuffix("_thumb.jpg")
        let id = String(name.prefix(while: { $0.isNumber }))
        guard !id.isEmpty, let item = item(id) else { return nil }
        let video = item.mediaType == "VIDEO"
        guard name == Self.cdnPath(id: id, video: video, thumbnail: thumbnail).dropFirst("/ig-cdn/".count) else { return nil }
        return InstagramPost.content(id: id, thumbnail: thumbnail, video: video)
    }

    /// An item (post or album child) by id.
    func item(_ id: String) -> InstagramPost? {
        state.withLock { state in
            guard let place = state.items[id], let user = state.users[place.user], place.post < user.posts.count else { return nil }
            let post = user.posts[place.post]
            return place.child.map { post.children[$0] } ?? post
        }
    }

    /// The user who owns item `id`.
    func owner(of id: String) -> String? {
        state.withLock { $0.items[id]?.user }
    }
}
