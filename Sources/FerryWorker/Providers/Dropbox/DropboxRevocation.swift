import FerryDropbox
import FerryStore
import Logging

/// Dropbox's `/2/auth/token/revoke`: disables the access token and the refresh token behind it.
struct DropboxRevocation: AccountRevocation {
    func revoke(
        _ credentials: AccountCredentials, tokens: AccountTokenProvider, logger: Logger
    ) async throws(AccountSetupError) {
        guard let accessToken = credentials.accessToken else { return }
        do {
            try await tokens.dropbox(credentials).revokeToken(accessToken: accessToken)
        } catch where error.code == .invalidAccessToken || error.code == .expiredAccessToken {
            return  // already unusable at the provider
        } catch {
            throw AccountSetupError(
                error.isRetryable ? .unreachable : .rejected,
                "could not revoke the token at the provider (\(error)); check the account's URLs and retry")
        }
    }
}
