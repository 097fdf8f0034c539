import FerryGoogleDrive

extension GoogleDriveError: BearerCallFailure {
    var refusesToken: Bool { code == .unauthorized }
    var isTransient: Bool { isRetryable && code != .rateLimited }
}
