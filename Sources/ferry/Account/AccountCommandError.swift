import FerryDropbox

/// Provider answers the account commands turn into a clear message and exit code.
enum AccountCommandError: Error, CustomStringConvertible {
    /// The provider refused the credentials while checking them.
    case verification(DropboxError)
    /// The provider could not be asked.
    case provider(DropboxError, action: String)

    var description: String {
        switch self {
        case .verification(let error) where error.code == .invalidGrant:
            "the provider rejected the refresh token (invalid_grant): get a new one, or use ferry account login"
        case .verification(let error) where error.code == .invalidClient:
            "the provider rejected the app key or secret (invalid_client): check --app-key and --app-secret-file"
        case .verification(let error):
            "could not check the refresh token with the provider (\(error)); retry, or add with --no-verify"
        case .provider(let error, let action):
            "could not \(action) (\(error)); check the account's URLs and retry"
        }
    }

    var isRejection: Bool {
        switch self {
        case .verification(let error), .provider(let error, _): !error.isRetryable
        }
    }
}
