import FerryCore
import FerryStore

extension OneDriveAccountKind {
    func shownFields(of account: AccountRecord) -> [AccountField] {
        [
            AccountField("client id", account.appKey ?? "-"),
            .secret("client secret", isStored: account.hasSecrets),
            .secret("refresh token", isStored: account.hasRefreshToken),
            AccountField("access token expires", account.accessTokenExpiresAt.map { ScheduleTime.iso8601($0) } ?? "-"),
            .url("api url", account.apiURL),
            .url("login url", account.authorizeURL),
        ]
    }
}
