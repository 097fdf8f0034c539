import FerryCore

/// The account a token belongs to (`GET /me?fields=user_id,username`).
public struct InstagramUser: Sendable, Equatable {
    public var userID: String
    public var username: String

    public init(userID: String, username: String) {
        self.userID = userID
        self.username = username
    }
}
