import FerryGoogleDrive

extension GoogleDriveError: OAuthGrantFailure {
    var rejectsGrant: Bool { code == .invalidGrant }
    var rejectsClient: Bool { code == .invalidClient }
}
