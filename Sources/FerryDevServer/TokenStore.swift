import FerryCore
import Crypto
import Foundation
import Synchronization

/// Accounts, OAuth codes and tokens, persisted to `.devserver/tokens.json` so a restarted dev
/// server still honours tokens a client saved earlier. Tokens never reach the logs.
final class TokenStore: Sendable {
    enum AccessCheck: Sendable {
        case valid(Account)
        case expired
        case invalid
    }

    private struct State: Sendable {
        var accounts: [String: Account] = [:]
        var refreshTokens: [String: RefreshTokenRecord] = [:]
        var accessTokens: [String: AccessTokenRecord] = [:]
        var codes: [String: AuthorizationCode] = [:]
    }

    private let statePath: String
    private let state: Mutex<State>
    let clock: DevServerClock

    init(storageRoot: String, clock: DevServerClock = DevServerClock()) throws {
        self.clock = clock
        statePath = storageRoot + "/.devserver/tokens.json"
        try FileManager.default.createDirectory(atPath: storageRoot + "/.devserver", withIntermediateDirectories: true)
        state = Mutex(State())
        load()
    }

    var accounts: [Account] { state.withLock { Array($0.accounts.values) } }

    func account(named name: String) -> Account? { state.withLock { $0.accounts[name] } }

    /// Returns the account, creating it (and persisting) if needed.
    func ensureAccount(_ name: String) -> Account {
        state.withLock { state in
            if let existing = state.accounts[name] { return existing }
            let taken = Set(state.accounts.values.map(\.folder))
            var folder = Self.folderName(for: name)
            var suffix = 2
            while taken.contains(folder) {
                folder = Self.folderName(for: name) + "-\(suffix)"
                suffix += 1
            }
            let digest = SHA256.hash(data: Data(name.utf8))
            // Dropbox account ids are exactly 40 characters ("dbid:" + 35), and the official SDKs check it.
            let id = "dbid:AA" + Data(digest).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "").prefix(33)
            let account = Account(name: name, accountID: id, folder: folder)
            state.accounts[name] = account
            save(state)
            return account
        }
    }

    /// Keeps names readable on disk while never escaping the storage directory.
    private static func folderName(for name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@")
        var folder = String(name.map { allowed.contains($0) ? $0 : "_" })
        if folder.isEmpty || folder.hasPrefix(".") { folder = "_" + folder }
        return folder
    }

    // MARK: Tokens

    func issueRefreshToken(account: String, publicClient: Bool) -> String {
        let token = RandomToken.make(bytes: 48)
        state.withLock { state in
            state.refreshTokens[token] = RefreshTokenRecord(account: account, publicClient: publicClient)
            save(state)
        }
        return token
    }

    func refreshRecord(_ token: String) -> RefreshTokenRecord? {
        state.withLock { $0.refreshTokens[token] }
    }

    func issueAccessToken(account: String, refreshToken: String?, lifetime: Double) -> String {
        let token = "sl." + RandomToken.make(bytes: 96)
        state.withLock { state in
            let now = clock.now
            // Forget long-expired tokens so the file stays small; recently expired ones are kept
            // so clients still get `expired_access_token` rather than `invalid_access_token`.
            state.accessTokens = state.accessTokens.filter { $0.value.expiresAt > now - 86_400 }
            state.accessTokens[token] = AccessTokenRecord(account: account, refreshToken: refreshToken, expiresAt: now + lifetime)
            save(state)
        }
        return token
    }

    func checkAccessToken(_ token: String) -> AccessCheck {
        state.withLock { state in
            guard let record = state.accessTokens[token] else { return .invalid }
            guard record.expiresAt > clock.now else { return .expired }
            guard let account = state.accounts[record.account] else { return .invalid }
            return .valid(account)
        }
    }

    /// Revokes an access token, its refresh token and every access token minted from it.
    func revoke(accessToken: String) {
        state.withLock { state in
            guard let record = state.accessTokens.removeValue(forKey: accessToken) else { return }
            if let refresh = record.refreshToken {
                state.refreshTokens.removeValue(forKey: refresh)
                state.accessTokens = state.accessTokens.filter { $0.value.refreshToken != refresh }
            }
            save(state)
        }
    }

    // MARK: Authorization codes

    func storeCode(_ code: AuthorizationCode) -> String {
        let value = RandomToken.make(bytes: 32)
        state.withLock { $0.codes[value] = code }
        return value
    }

    /// Codes are single use: a second exchange fails even if the first one did.
    func consumeCode(_ value: String) -> AuthorizationCode? {
        state.withLock { state in
            guard let code = state.codes.removeValue(forKey: value), code.expiresAt > clock.now else {
                return nil
            }
            return code
        }
    }

    // MARK: Persistence

    private func save(_ state: State) {
        let accounts = state.accounts.values.sorted { $0.name < $1.name }.map { account in
            JSONValue.object(["name": .string(account.name), "account_id": .string(account.accountID), "folder": .string(account.folder)])
        }
        let refresh = state.refreshTokens.sorted { $0.key < $1.key }.map { token, record in
            JSONValue.object(["token": .string(token), "account": .string(record.account), "public": .bool(record.publicClient)])
        }
        let access = state.accessTokens.sorted { $0.key < $1.key }.map { token, record in
            var members: [String: JSONValue] = [
                "token": .string(token), "account": .string(record.account), "expires_at": .double(record.expiresAt),
            ]
            if let refresh = record.refreshToken { members["refresh_token"] = .string(refresh) }
            return JSONValue.object(members)
        }
        let document = JSONValue.object(["accounts": .array(accounts), "refresh_tokens": .array(refresh), "access_tokens": .array(access)])
        let temporary = statePath + ".tmp"
        // Write-then-rename so a crash never leaves a torn file.
        guard FileManager.default.createFile(atPath: temporary, contents: Data(document.jsonText.utf8), attributes: [.posixPermissions: 0o600]) else { return }
        _ = rename(temporary, statePath)
    }

    private func load() {
        guard let data = FileManager.default.contents(atPath: statePath),
              let document = try? JSONValue.parse(utf8: Array(data))
        else { return }
        state.withLock { state in
            for item in document["accounts"]?.arrayValue ?? [] {
                guard let name = item["name"]?.stringValue, let id = item["account_id"]?.stringValue,
                      let folder = item["folder"]?.stringValue else { continue }
                state.accounts[name] = Account(name: name, accountID: id, folder: folder)
            }
            for item in document["refresh_tokens"]?.arrayValue ?? [] {
                guard let token = item["token"]?.stringValue, let account = item["account"]?.stringValue else { continue }
                state.refreshTokens[token] = RefreshTokenRecord(account: account, publicClient: item["public"]?.boolValue ?? false)
            }
            for item in document["access_tokens"]?.arrayValue ?? [] {
                guard let token = item["token"]?.stringValue, let account = item["account"]?.stringValue,
                      let expires = item["expires_at"]?.numberValue else { continue }
                state.accessTokens[token] = AccessTokenRecord(account: account, refreshToken: item["refresh_token"]?.stringValue, expiresAt: expires)
            }
        }
    }
}
