import FerryCore
import Foundation
import Synchronization

/// Every emulated OneDrive account (items in memory), token, code and upload session. One store per dev server,
/// found through ``of(_:)`` so that adding the emulation took no field in the shared backend; a restarted server
/// forgets them (tests make their accounts anew).
final class OneDriveStore: Sendable {
    struct Drive: Sendable {
        var rootID: String
        var items: [String: OneDriveDevItem]
    }

    struct Code: Sendable {
        var account: String
        var challenge: String?
        var method: String
        var redirectURI: String
        var expiresAt: Double
    }

    struct State: Sendable {
        var drives: [String: Drive] = [:]
        var refreshTokens: [String: String] = [:]
        var accessTokens: [String: (account: String, expiresAt: Double)] = [:]
        var codes: [String: Code] = [:]
        var sessions: [String: OneDriveDevSession] = [:]
        var nextID: Int64 = 1
        /// Seconds a new upload session lives.
        var sessionLifetime: Double = 3600
        /// The next this many Graph calls are throttled (429, or 503 with `status`), with this `Retry-After`.
        var throttleNext = 0
        var throttleStatus = 429
        var throttleRetryAfter = 1
        /// Children per page when the client asks for none.
        var defaultPageSize = 200
        var stats = OneDriveDevStats()
    }

    let clock: DevServerClock
    let state = Mutex(State())

    init(clock: DevServerClock) {
        self.clock = clock
    }

    private static let stores = Mutex<[ObjectIdentifier: OneDriveStore]>([:])

    /// The store of `backend`'s server (made on first use).
    static func of(_ backend: DevServerBackend) -> OneDriveStore {
        stores.withLock { stores in
            if let store = stores[ObjectIdentifier(backend)] { return store }
            let store = OneDriveStore(clock: backend.configuration.clock)
            stores[ObjectIdentifier(backend)] = store
            return store
        }
    }

    func record(_ change: (inout OneDriveDevStats) -> Void) {
        state.withLock { change(&$0.stats) }
    }

    var now: String { OneDriveDevTime.format(clock.now) }

    static func newID(_ state: inout State) -> String {
        state.nextID += 1
        return String(format: "E0D1%012llX!%lld", state.nextID * 7919, state.nextID)
    }

    @discardableResult
    func ensureAccount(_ name: String) -> String {
        state.withLock { state in
            if let drive = state.drives[name] { return drive.rootID }
            let id = Self.newID(&state)
            let root = OneDriveDevItem(id: id, name: "root", parentID: nil, isFolder: true, created: now, modified: now)
            state.drives[name] = Drive(rootID: id, items: [id: root])
            return id
        }
    }

    // MARK: Tokens

    func issueRefreshToken(account: String) -> String {
        let token = "M.C5" + RandomToken.make(bytes: 48)
        state.withLock { $0.refreshTokens[token] = account }
        return token
    }

    func account(ofRefreshToken token: String) -> String? { state.withLock { $0.refreshTokens[token] } }

    func revoke(refreshToken token: String) { _ = state.withLock { $0.refreshTokens.removeValue(forKey: token) } }

    func revokeRefreshTokens(account: String) { state.withLock { $0.refreshTokens = $0.refreshTokens.filter { $0.value != account } } }

    func issueAccessToken(account: String, lifetime: Double) -> String {
        let token = "EwB" + RandomToken.make(bytes: 96)
        let expiresAt = clock.now + lifetime
        state.withLock { $0.accessTokens[token] = (account, expiresAt) }
        return token
    }

    /// The account of a valid access token.
    func account(ofAccessToken token: String) -> String? {
        state.withLock { state in
            guard let record = state.accessTokens[token], record.expiresAt > clock.now, state.drives[record.account] != nil else { return nil }
            return record.account
        }
    }

    func storeCode(_ code: Code) -> String {
        let value = "M.C5_BAY." + RandomToken.make(bytes: 32)
        state.withLock { $0.codes[value] = code }
        return value
    }

    func consumeCode(_ value: String) -> Code? {
        state.withLock { state in
            guard let code = state.codes.removeValue(forKey: value), code.expiresAt > clock.now else { return nil }
            return code
        }
    }

    /// Takes one throttled answer off the count: its status and `Retry-After`, or `nil`.
    func takeThrottle() -> (status: Int, retryAfter: Int)? {
        state.withLock { state in
            guard state.throttleNext > 0 else { return nil }
            state.throttleNext -= 1
            state.stats.throttled += 1
            return (state.throttleStatus, state.throttleRetryAfter)
        }
    }
}

/// Times as Graph writes them.
enum OneDriveDevTime {
    static func format(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: seconds.rounded(.down)))
    }
}
