import FerryOneDrive

extension OneDriveClient: OAuthRefreshClient {}
