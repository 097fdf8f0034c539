import FerryGoogleDrive

extension GoogleDriveClient: OAuthRefreshClient {}
