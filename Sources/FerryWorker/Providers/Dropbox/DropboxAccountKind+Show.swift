import FerryStore
import FerryCore

extension DropboxAccountKind {
    func shownFields(of account: AccountRecord) -> [AccountField] {
        [
            AccountField("app key", account.appKey ?? "-"),
            .secret("app secret", isStored: account.hasSecrets),
            .secret("refresh token", isStored: account.hasRefreshToken),
            AccountField("access token expires", account.accessTokenExpiresAt.map { ScheduleTime.iso8601($0) } ?? "-"),
            .url("api url", account.apiURL), .url("content url", account.contentURL),
            .url("authorize url", account.authorizeURL),
        ]
    }
}
