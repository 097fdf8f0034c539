import Foundation

/// What a redeemed authorization code gave: the tokens to store and the provider's id of the account.
public struct AccountLoginGrant: Sendable {
    public var refreshToken: String
    public var accessToken: String
    public var accessTokenExpiresAt: Date
    public var providerAccountID: String?

    public init(refreshToken: String, accessToken: String, accessTokenExpiresAt: Date, providerAccountID: String?) {
        self.refreshToken = refreshToken
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.providerAccountID = providerAccountID
    }
}
