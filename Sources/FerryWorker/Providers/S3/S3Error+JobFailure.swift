import FerryS3
import Foundation

extension S3Error {
    /// The job failure this error means: a rate limit defers the job, passing failures retry, and refusals
    /// (access denied, no such bucket, bad keys …) fail it for good with S3's reason.
    func jobFailure(doing action: String) -> JobFailure {
        switch disposition {
        case .rateLimited(let retryAfter):
            // SlowDown rarely says how long: back off a few seconds, with jitter so workers do not return together.
            let wait = retryAfter ?? Double.random(in: 2...6)
            return .rateLimited(until: Date().addingTimeInterval(wait), "S3 asked to slow down while \(action)")
        case .retryable:
            return .retryable("s3_\(code.description)", "\(action): \(description)")
        case .permanent:
            return .permanent("s3_\(code.description)", "\(action): \(description)")
        }
    }
}
