import FerryOneDrive

extension OneDriveError: OAuthGrantFailure {
    var rejectsGrant: Bool { code == .invalidGrant }
    var rejectsClient: Bool { code == .invalidClient }
}
