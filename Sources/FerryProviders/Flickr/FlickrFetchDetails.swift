/// The details of a Flickr fetch: a photostream listing (`flickr:USER_ID`), or one photo it found (a child,
/// `flickr:USER_ID/photo/PHOTO_ID` with ``photo`` and ``account``).
public struct FlickrFetchDetails: Codable, Sendable, Equatable {
    /// The folder every photo is written into.
    public var root: String
    /// The photo size suffix (`z`, `b` …); none means Flickr's medium 500.
    public var sizeSuffix: String?
    /// Fetch at most this many photos.
    public var max: Int64?
    /// A child: the photo it fetches.
    public var photo: FlickrPhotoReference?
    /// A child: the account whose photo base its URL is built under (the listing's; a child job names no
    /// account, so the account's cap on concurrent transfers governs API calls, not photo downloads).
    public var account: String?

    enum CodingKeys: String, CodingKey {
        case root
        case sizeSuffix = "size"
        case max, photo, account
    }

    public init(root: String, sizeSuffix: String? = nil, max: Int64? = nil, photo: FlickrPhotoReference? = nil, account: String? = nil) {
        self.root = root
        self.sizeSuffix = sizeSuffix
        self.max = max
        self.photo = photo
        self.account = account
    }
}
