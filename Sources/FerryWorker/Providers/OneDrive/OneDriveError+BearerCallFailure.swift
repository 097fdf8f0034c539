import FerryOneDrive

extension OneDriveError: BearerCallFailure {
    var refusesToken: Bool { code == .unauthorized }
    var isTransient: Bool { isRetryable && code != .rateLimited }
}
