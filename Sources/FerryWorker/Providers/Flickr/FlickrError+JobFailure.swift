import FerryFlickr
import Foundation

extension FlickrError {
    /// How a job treats this error. Matches on codes, never on messages.
    func jobFailure(doing action: String) -> JobFailure {
        switch code {
        case .invalidAPIKey:
            return .permanent("flickr_bad_api_key", "\(action): Flickr refused the API key: \(message) (code \(flickrCode ?? 100)); fix it with ferry account add")
        case .userNotFound:
            return .permanent("flickr_user_not_found", "\(action): Flickr says: \(message) (code \(flickrCode ?? 1))")
        case .apiError:
            return .permanent("flickr_api_error", "\(action): Flickr says: \(message) (code \(flickrCode.map(String.init) ?? "none"))")
        case .rateLimited:
            let wait = max(1, retryAfter ?? 30)
            return .rateLimited(until: Date().addingTimeInterval(wait), "\(action): Flickr asked to wait \(Int(wait.rounded(.up))) s")
        case .httpStatus:
            return .permanent("flickr_http_status", "\(action): \(self)")
        case .serviceUnavailable, .serverError, .transport, .timeout, .invalidResponse:
            return .retryable("flickr_unavailable", "\(action): \(self)")
        }
    }
}
