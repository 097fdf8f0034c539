import FerryGoogleDrive
import Foundation

extension GoogleDriveError {
    /// How a job treats this error once in-attempt retries are spent. Matches on codes and reasons, never summaries.
    func jobFailure(doing action: String) -> JobFailure {
        switch code {
        case .rateLimited:
            // Google's 403 rate limits carry no Retry-After: back off a few seconds.
            return .slowDown(retryAfter: retryAfter) {
                "Google Drive asked to slow down (\(reason ?? "429")) while \(action); back in \($0) s"
            }
        case .serverError, .transport, .timeout, .invalidResponse, .sessionExpired:
            return .retryable("gdrive_unavailable", "\(action): \(self)")
        case .unauthorized:
            return .retryable("gdrive_auth", "\(action): the access token was refused after a refresh")
        case .invalidGrant, .invalidClient:
            return .held("account_needs_login", "\(action): the account's credentials were rejected; run ferry account login")
        case .notFound:
            return .permanent("not_found", "\(action): not found")
        case .forbidden:
            switch reason {
            case "storageQuotaExceeded":
                return .permanent("insufficient_space", "\(action): the Google Drive account is full")
            case "fileNotDownloadable":
                return .permanent("not_downloadable", "\(action): a Google Docs item has no bytes; fetch it with --option export=FORMAT")
            default:
                return .permanent("gdrive_access_denied", "\(action): Google Drive refused it (\(self))")
            }
        case .badRequest:
            return .permanent("gdrive_bad_request", "\(action): Google Drive refused the request (\(self))")
        }
    }
}
