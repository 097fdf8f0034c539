import FerryOneDrive
import Foundation

extension OneDriveError {
    /// How a job treats this error once in-attempt retries are spent. Matches on codes and reasons, never summaries.
    func jobFailure(doing action: String) -> JobFailure {
        switch code {
        case .rateLimited:
            // Graph's throttling answers carry Retry-After; without one, a few seconds.
            return .slowDown(retryAfter: retryAfter) {
                "OneDrive asked to slow down (HTTP \(httpStatus ?? 429)) while \(action); back in \($0) s"
            }
        case .serverError, .transport, .timeout, .invalidResponse, .sessionExpired:
            return .retryable("onedrive_unavailable", "\(action): \(self)")
        case .unauthorized:
            return .retryable("onedrive_auth", "\(action): the access token was refused after a refresh")
        case .invalidGrant, .invalidClient:
            return .held("account_needs_login", "\(action): the account's credentials were rejected; run ferry account login")
        case .notFound:
            return .permanent("not_found", "\(action): not found")
        case .conflict:
            return .permanent("destination_exists", "\(action): an item of that name is there already (\(self)); enqueue with --option mode=overwrite or mode=rename")
        case .insufficientStorage:
            return .permanent("insufficient_space", "\(action): the OneDrive is full")
        case .forbidden:
            return .permanent("onedrive_access_denied", "\(action): OneDrive refused it (\(self))")
        case .rangeNotSatisfiable, .badRequest:
            return .permanent("onedrive_bad_request", "\(action): OneDrive refused the request (\(self))")
        }
    }
}
