import Crypto
import FerryCore
import Foundation
import Synchronization

/// Every emulated Instagram user, token and signed link, in memory (a restarted server forgets them: tests make
/// their users anew). One store per dev server, found through ``of(_:)`` so that adding the emulation took no
/// field in the shared backend.
final class InstagramStore: Sendable {
    struct State: Sendable {
        var users: [String: InstagramUserRecord] = [:]
        var tokens: [String: InstagramToken] = [:]
        /// Item id → (user id, index path: post, optional child).
        var items: [String: (user: String, post: Int, child: Int?)] = [:]
        /// Links signed before the current epoch are expired (``expireLinks()``).
        var linkEpoch = 0
        /// Seconds a signed link lives.
        var linkLifetime: Double = 3600
        /// Once this many downloads have been served, every link signed so far expires (links expiring while a
        /// feed's files are being fetched, at a point a test can count on).
        var expireLinksAfterDownloads: Int?
        var nextID: Int64 = 17_841_400_000_000_000
        var stats = InstagramStats()
    }

    let clock: DevServerClock
    let state = Mutex(State())
    /// Signs CDN links; new per server, so links from another run are refused.
    let signingKey = SymmetricKey(size: .bits256)

    init(clock: DevServerClock) {
        self.clock = clock
    }

    private static let stores = Mutex<[ObjectIdentifier: InstagramStore]>([:])

    /// The store of `backend`'s server (made on first use).
    static func of(_ backend: DevServerBackend) -> InstagramStore {
        stores.withLock { stores in
            if let store = stores[ObjectIdentifier(backend)] { return store }
            let store = InstagramStore(clock: backend.configuration.clock)
            stores[ObjectIdentifier(backend)] = store
            return store
        }
    }

    /// Makes a user with `count` posts and a token; answers the user, the token and the posts made.
    func makeUser(username: String, count: Int, configure: (inout InstagramUserRecord) -> Void) -> (InstagramUserRecord, String, [InstagramPost]) {
        state.withLock { state in
            state.nextID += 1000
            var user = InstagramUserRecord(userID: String(state.nextID), username: username)
            configure(&user)
            state.users[user.userID] = user
            let posts = Self.addPosts(&state, userID: user.userID, count: count)
            let token = Self.issueToken(&state, userID: user.userID, now: clock.now)
            return (state.users[user.userID]!, token, posts)
        }
    }

    /// Adds `count` newer posts to the front of a user's feed.
    func addPosts(userID: String, count: Int) -> [InstagramPost]? {
        state.withLock { state in
            state.users[userID] == nil ? nil : Self.addPosts(&state, userID: userID, count: count)
        }
    }

    /// Adds a post whose id no real feed has (path tricks, control characters), to show a client skips it.
    func addHostilePost(userID: String, id: String, caption: String) {
        state.withLock { state in
            guard var user = state.users[userID] else { return }
            user.posts.insert(InstagramPost(id: id, mediaType: "IMAGE", caption: caption, timestamp: "2024-06-01T00:00:00+0000", likes: 1, comments: 0), at: 0)
            state.users[userID] = user
            Self.reindex(&state, userID: userID)
        }
    }

    private static func addPosts(_ state: inout State, userID: String, count: Int) -> [InstagramPost] {
        guard var user = state.users[userID] else { return [] }
        var made: [InstagramPost] = []
        for _ in 0..<count {
            state.nextID += 100
            made.append(InstagramPost.generated(index: user.generated, id: state.nextID, username: user.username))
            user.generated += 1
        }
        user.posts.insert(contentsOf: made.reversed(), at: 0)
        state.users[userID] = user
        reindex(&state, userID: userID)
        return made
    }

    private static func reindex(_ state: inout State, userID: String) {
        guard let user = state.users[userID] else { return }
        for (index, post) in user.posts.enumerated() {
            state.items[post.id] = (userID, index, nil)
            for (childIndex, child) in post.children.enumerated() { state.items[child.id] = (userID, index, childIndex) }
        }
    }

    static func issueToken(_ state: inout State, userID: String, now: Double) -> String {
        let token = "IGQW" + (0..<40).map { _ in String("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".randomElement()!) }.joined()
        let lifetime = state.users[userID]?.tokenLifetime ?? 60 * 86_400
        state.tokens[token] = InstagramToken(userID: userID, issuedAt: now, expiresAt: now + lifetime)
        return token
    }

    /// The user a token belongs to, or `nil` when it is unknown or expired (counted).
    func user(ofToken token: String) -> InstagramUserRecord? {
        state.withLock { state in
            state.stats.callsPerTokenPrefix[String(token.prefix(8)), default: 0] += 1
            guard let record = state.tokens[token], record.expiresAt > clock.now, let user = state.users[record.userID] else {
                state.stats.rejectedTokens += 1
                return nil
            }
            return user
        }
    }

    /// A new token for a known user (what a person makes in Meta's app dashboard), or `nil` for an unknown user.
    func newToken(userID: String) -> String? {
        state.withLock { state in
            guard state.users[userID] != nil else { return nil }
            return Self.issueToken(&state, userID: userID, now: clock.now)
        }
    }

    /// Makes a token expire now.
    func expire(token: String) {
        state.withLock { state in state.tokens[token]?.expiresAt = clock.now - 1 }
    }

    /// Makes every link signed so far expire.
    func expireLinks() {
        state.withLock { $0.linkEpoch += 1 }
    }

    /// Counts a download served and, when a test asked for it, expires the links once enough were served.
    func served(_ path: String) {
        state.withLock { state in
            state.stats.downloadsPerPath[path, default: 0] += 1
            let served = state.stats.downloadsPerPath.values.reduce(0, +)
            if let limit = state.expireLinksAfterDownloads, served >= limit {
                state.linkEpoch += 1
                state.expireLinksAfterDownloads = nil
            }
        }
    }

    func update(_ userID: String, _ body: (inout InstagramUserRecord) -> Void) -> Bool {
        state.withLock { state in
            guard var user = state.users[userID] else { return false }
            body(&user)
            state.users[userID] = user
            return true
        }
    }

    func record(_ body: (inout InstagramStats) -> Void) {
        state.withLock { body(&$0.stats) }
    }
}
