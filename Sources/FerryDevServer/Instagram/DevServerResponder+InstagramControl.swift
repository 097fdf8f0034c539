import FerryCore
import Foundation
import Hummingbird

/// `/__dev/instagram/` routes (not part of Instagram's API, never subject to faults):
///
/// - `POST /__dev/instagram/users {"username", "count", "token_lifetime_s"?, "refresh_min_age_s"?, "link_lifetime_s"?,
///   "hostile"?}` makes a user with `count` posts (deterministic images, videos and albums; with `hostile`, two
///   more posts whose ids are path tricks and a caption of control characters) and answers
///   `{"user_id", "username", "access_token", "posts": [{"id", "media_type", "children": [ids]}], "files"}`.
/// - `POST /__dev/instagram/posts {"user_id", "count"}` adds newer posts (answered the same way).
/// - `POST /__dev/instagram/expire-links {"after_downloads"?: N}` makes every link signed so far expire, now or
///   once N downloads have been served in all.
/// - `POST /__dev/instagram/expire-token {"access_token"}` makes a token expire now (its next use is code 190).
/// - `POST /__dev/instagram/tokens {"user_id"}` issues a new token for a user (`{"access_token"}`), as a person
///   makes one in Meta's app dashboard for `ferry account login`.
/// - `POST /__dev/instagram/usage {"user_id", "percent"?, "throttle"?}` sets the usage reported and refuses the
///   next `throttle` calls with rate-limit codes.
/// - `GET /__dev/instagram/stats` answers ``InstagramStats``.
extension DevServerResponder {
    func instagramControl(_ request: Request, path: String, store: InstagramStore) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 1024 * 1024)
        let json = (try? JSONValue.parse(utf8: Array(body.readableBytesView))) ?? .object([:])
        func bad(_ message: String) -> Response { .json(.object(["error": .string(message)]), status: .badRequest) }
        switch (request.method, path) {
        case (.post, "/__dev/instagram/users"):
            guard let username = json["username"]?.stringValue, !username.isEmpty, username.utf8.count <= 64,
                let count = json["count"]?.intValue, (0...100_000).contains(count)
            else { return bad("Expected {\"username\", \"count\"}.") }
            let (user, token, posts) = store.makeUser(username: username, count: Int(count)) { user in
                if let lifetime = json["token_lifetime_s"]?.numberValue { user.tokenLifetime = lifetime }
                if let age = json["refresh_min_age_s"]?.numberValue { user.refreshMinimumAge = age }
            }
            if let lifetime = json["link_lifetime_s"]?.numberValue { store.state.withLock { $0.linkLifetime = lifetime } }
            if json["hostile"]?.boolValue == true {
                store.addHostilePost(userID: user.userID, id: "../../escape", caption: "\u{1B}[2J\u{1B}]0;owned\u{07} ../../etc/passwd")
                store.addHostilePost(userID: user.userID, id: "12\u{1B}[31m34", caption: "\u{202E}gpj.exe")
            }
            return .json(.object([
                "user_id": .string(user.userID), "username": .string(user.username), "access_token": .string(token),
                "posts": .array(posts.map(Self.instagramPostJSON)), "files": .int(Int64(Self.instagramFiles(posts))),
            ]))
        case (.post, "/__dev/instagram/posts"):
            guard let userID = json["user_id"]?.stringValue, let count = json["count"]?.intValue, (0...100_000).contains(count),
                let posts = store.addPosts(userID: userID, count: Int(count))
            else { return bad("Expected {\"user_id\", \"count\"} of a known user.") }
            return .json(.object(["posts": .array(posts.map(Self.instagramPostJSON)), "files": .int(Int64(Self.instagramFiles(posts)))]))
        case (.post, "/__dev/instagram/expire-links"):
            if let after = json["after_downloads"]?.intValue {
                store.state.withLock { $0.expireLinksAfterDownloads = Int(max(0, after)) }
            } else {
                store.expireLinks()
            }
            return .json(.object([:]))
        case (.post, "/__dev/instagram/expire-token"):
            guard let token = json["access_token"]?.stringValue else { return bad("Expected {\"access_token\"}.") }
            store.expire(token: token)
            return .json(.object([:]))
        case (.post, "/__dev/instagram/tokens"):
            guard let userID = json["user_id"]?.stringValue, let token = store.newToken(userID: userID) else {
                return bad("Expected {\"user_id\"} of a known user.")
            }
            return .json(.object(["access_token": .string(token)]))
        case (.post, "/__dev/instagram/usage"):
            guard let userID = json["user_id"]?.stringValue else { return bad("Expected {\"user_id\"}.") }
            let known = store.update(userID) { user in
                if let percent = json["percent"]?.intValue { user.usagePercent = max(0, min(100, percent)) }
                if let throttle = json["throttle"]?.intValue { user.throttleNext = Int(max(0, min(1000, throttle))) }
            }
            return known ? .json(.object([:])) : bad("Unknown user.")
        case (.get, "/__dev/instagram/stats"):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let stats = store.state.withLock { $0.stats }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(stats))))
        default:
            return .json(.object(["error": .string("Unknown dev-server route \(request.method.rawValue) \(path)")]), status: .notFound)
        }
    }

    static func instagramPostJSON(_ post: InstagramPost) -> JSONValue {
        .object([
            "id": .string(post.id), "media_type": .string(post.mediaType), "like_count": .int(post.likes),
            "timestamp": .string(post.timestamp), "children": .array(post.children.map { .string($0.id) }),
        ])
    }

    /// The files a client fetches for `posts` (without covers): one per image and video, one per album child.
    static func instagramFiles(_ posts: [InstagramPost]) -> Int {
        posts.reduce(0) { $0 + max(1, $1.children.count) }
    }
}
