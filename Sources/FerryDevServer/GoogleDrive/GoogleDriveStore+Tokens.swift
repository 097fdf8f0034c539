import FerryCore

/// OAuth: refresh tokens (long-lived, journaled), access tokens (journaled, so a restarted server still honours
/// them) and authorization codes (single use, in memory).
extension GoogleDriveStore {
    enum AccessCheck: Sendable, Equatable {
        case valid(account: String)
        case expired
        case invalid
    }

    func issueRefreshToken(account: String) -> String {
        let token = "1//" + RandomToken.make(bytes: 48)
        state.withLock { state in
            state.refreshTokens[token] = account
            Self.append(&state, .object(["op": .string("refresh"), "token": .string(token), "account": .string(account)]))
        }
        return token
    }

    /// The account a refresh token belongs to; `nil` when it is unknown or revoked.
    func account(ofRefreshToken token: String) -> String? {
        state.withLock { $0.refreshTokens[token] }
    }

    /// Revokes a refresh token (the account then needs a new login: `invalid_grant`).
    func revoke(refreshToken token: String) {
        state.withLock { state in
            guard state.refreshTokens.removeValue(forKey: token) != nil else { return }
            Self.append(&state, .object(["op": .string("revoke"), "token": .string(token)]))
        }
    }

    func issueAccessToken(account: String, lifetime: Double) -> String {
        let token = "ya29." + RandomToken.make(bytes: 96)
        state.withLock { state in
            let expiresAt = clock.now + lifetime
            state.accessTokens[token] = AccessToken(account: account, expiresAt: expiresAt)
            Self.append(&state, .object([
                "op": .string("access"), "token": .string(token), "account": .string(account), "expires_at": .double(expiresAt),
            ]))
        }
        return token
    }

    func checkAccessToken(_ token: String) -> AccessCheck {
        state.withLock { state in
            guard let record = state.accessTokens[token], state.accounts[record.account] != nil else { return .invalid }
            return record.expiresAt > clock.now ? .valid(account: record.account) : .expired
        }
    }

    func storeCode(_ code: GoogleAuthorizationCode) -> String {
        let value = "4/" + RandomToken.make(bytes: 32)
        state.withLock { $0.codes[value] = code }
        return value
    }

    /// Codes are single use: a second exchange fails even if the first one did.
    func consumeCode(_ value: String) -> GoogleAuthorizationCode? {
        state.withLock { state in
            guard let code = state.codes.removeValue(forKey: value), code.expiresAt > clock.now else { return nil }
            return code
        }
    }
}
