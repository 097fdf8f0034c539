import FerryDropbox
import Foundation

extension DropboxError {
    /// How a job treats this error once in-attempt retries are spent. Matches on error tags, never on summaries.
    func jobFailure(doing action: String) -> JobFailure {
        switch code {
        case .rateLimited, .tooManyWriteOperations:
            return .slowDown(retryAfter: retryAfter) { "Dropbox asked to wait \($0) s (\(code.rawValue)) while \(action)" }
        case .serverError, .transport, .timeout, .invalidResponse:
            return .retryable("dropbox_unavailable", "\(action): \(self)")
        case .expiredAccessToken, .invalidAccessToken, .authError:
            return .retryable("dropbox_auth", "\(action): the access token was refused after a refresh (\(code.rawValue))")
        case .invalidGrant, .invalidClient:
            return .held("account_needs_login", "\(action): the account's credentials were rejected; run ferry account login")
        case .badRequest:
            return .permanent("dropbox_bad_request", "\(action): Dropbox refused the request (\(self))")
        case .accessError:
            return .permanent("dropbox_access_denied", "\(action): the app has no access (\(self))")
        case .pathError:
            let path = tags.joined(separator: "/")
            if tags.contains("conflict") {
                return .permanent("destination_exists", "\(action): a different file or folder is already at the destination (\(path)); use mode overwrite or another path")
            }
            if tags.contains("insufficient_space") {
                return .permanent("insufficient_space", "\(action): the Dropbox account is full (\(path))")
            }
            if tags.contains("malformed_path") || tags.contains("disallowed_name") {
                return .permanent("bad_path", "\(action): Dropbox refused the destination path (\(path))")
            }
            if tags.contains("no_write_permission") || tags.contains("team_folder") {
                return .permanent("no_write_permission", "\(action): no permission to write there (\(path))")
            }
            if tags.contains("not_found") {
                return .permanent("not_found", "\(action): not found (\(path))")
            }
            return .permanent("dropbox_route_error", "\(action): \(path)")
        }
    }
}
