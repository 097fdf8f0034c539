import FerryInstagram
import FerryStore

extension AccountCredentials {
    /// The long-lived token in use: the last refresh's (the access token column), else the one given to
    /// `ferry account add` (kept sealed as the refresh token).
    public var instagramToken: String? { accessToken ?? refreshToken }

    /// The account's Graph host: `--api-url` when set (the dev server), Meta's otherwise.
    public var instagramEndpoints: InstagramEndpoints {
        apiURL.map(InstagramEndpoints.init(api:)) ?? .production
    }
}
