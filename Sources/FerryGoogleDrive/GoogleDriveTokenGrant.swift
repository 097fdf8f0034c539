import FerryHTTP

/// Google's token answers.
public typealias GoogleDriveTokenGrant = OAuthTokenGrant
