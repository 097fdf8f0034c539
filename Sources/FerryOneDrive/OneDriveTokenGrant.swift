import FerryHTTP

/// The identity platform's token answers.
public typealias OneDriveTokenGrant = OAuthTokenGrant
