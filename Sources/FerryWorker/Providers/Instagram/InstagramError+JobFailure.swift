import FerryInstagram
import Foundation

extension InstagramError {
    /// How a job treats this error once in-attempt retries are spent. Matches on codes, never on messages.
    func jobFailure(doing action: String) -> JobFailure {
        switch code {
        case .rateLimited:
            let wait = max(30, retryAfter ?? 60)
            return .rateLimited(
                until: Date().addingTimeInterval(wait),
                "\(action): Instagram's rate limit (code \(graphCode.map(String.init) ?? "429")); back in \(Int(wait.rounded(.up))) s")
        case .invalidToken:
            return .held("instagram_token", "\(action): Instagram rejected the token (code 190); give the account a new token with ferry account login")
        case .notFound:
            return .permanent("instagram_media_gone", "\(action): \(self)")
        case .apiError:
            return .permanent("instagram_api_error", "\(action): \(self)")
        case .httpStatus:
            return .permanent("instagram_http_status", "\(action): \(self)")
        case .serverError, .transport, .timeout, .invalidResponse:
            return .retryable("instagram_unavailable", "\(action): \(self)")
        }
    }
}
