/// The details of an Instagram fetch: the feed listing (`instagram:ACCOUNT`), or one file it found (a child,
/// `instagram:ACCOUNT/media/ID`, with ``media`` and ``account``).
public struct InstagramFetchDetails: Codable, Sendable, Equatable {
    /// The folder every file is written into.
    public var root: String
    /// Fetch at most this many posts.
    public var max: Int64?
    /// Also fetch videos' cover images.
    public var thumbnails: Bool?
    /// A child: the file it fetches.
    public var media: InstagramMediaReference?
    /// A child: the account whose token re-reads an expired link (a child job names no account, so the account's
    /// cap on concurrent transfers governs API calls, not CDN downloads).
    public var account: String?

    public init(root: String, max: Int64? = nil, thumbnails: Bool? = nil, media: InstagramMediaReference? = nil, account: String? = nil) {
        self.root = root
        self.max = max
        self.thumbnails = thumbnails
        self.media = media
        self.account = account
    }
}
