/// What a caller (the worker) should do about an ``S3Error``.
extension S3Error {
    /// Retry now-ish, retry after backing off for the service's sake, or give up with the reason.
    public enum Disposition: Sendable, Hashable {
        /// A passing failure (5xx, connection dropped, timeout, body corrupted in transit): try again
        /// with the usual backoff.
        case retryable
        /// The service asked for fewer requests (`SlowDown`, 429): back off, at least `retryAfter`
        /// seconds when given.
        case rateLimited(retryAfter: Double?)
        /// Trying again cannot help (wrong credentials, no such bucket, object changed, …): fail
        /// for good with ``S3Error/description`` as the reason.
        case permanent
    }

    /// How to treat this failure.
    public var disposition: Disposition {
        switch code {
        case .slowDown:
            return .rateLimited(retryAfter: retryAfter)
        case .serverError, .transport, .timeout, .invalidResponse:
            return .retryable
        case .badDigest:
            // The bytes changed on the way; the caller re-reads and re-hashes the part.
            return .retryable
        case .other(let name):
            // S3's RequestTimeout is a 400 for a client that sent the body too slowly.
            if name == "RequestTimeout" || name == "InternalError" || (httpStatus ?? 0) >= 500 { return .retryable }
            return .permanent
        case .accessDenied, .noSuchBucket, .noSuchKey, .noSuchUpload, .invalidPart, .invalidPartOrder, .entityTooSmall,
             .preconditionFailed, .invalidRange, .signatureDoesNotMatch, .invalidAccessKeyId, .expiredToken, .invalidArgument:
            return .permanent
        }
    }

    /// Shorthand for `disposition != .permanent`.
    public var isRetryable: Bool { disposition != .permanent }
}
