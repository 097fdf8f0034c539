import FerryCore
import FerryStore

extension AccountField {
    /// The rows of an OAuth client account: its client (`key`, in the provider's words), whether its secret and
    /// refresh token are stored (never their values), and when its access token expires.
    static func oauthClient(_ account: AccountRecord, key: String = "client id", secret: String = "client secret") -> [AccountField] {
        [
            AccountField(key, account.appKey ?? "-"),
            .secret(secret, isStored: account.hasSecrets),
            .secret("refresh token", isStored: account.hasRefreshToken),
            AccountField("access token expires", account.accessTokenExpiresAt.map { ScheduleTime.iso8601($0) } ?? "-"),
        ]
    }
}
