/// Options that only fetch jobs take (from CLI flags or a JSON Lines record).
public struct FetchOptions: Sendable, Hashable {
    /// Expected SHA-256 of the downloaded file (64 hex digits). URL and Dropbox file fetches.
    public var sha256: String?
    /// Dropbox folders: also list subfolders.
    public var recursive: Bool?
    /// Dropbox: fetch `get_thumbnail_v2` thumbnails of this size (`w256h256` …) instead of the files.
    public var thumbnail: String?
    /// Flickr: the photo size suffix (`z`, `b`, `q` …); none means Flickr's medium 500.
    public var size: String?
    /// Flickr: fetch at most this many photos (newest first).
    public var max: Int64?
    /// Flickr: the account holding the API key; defaults to the only Flickr account.
    public var account: String?
    /// Dropbox folders: entries per `list_folder` page (1–2000).
    public var pageSize: Int64?

    public init(
        sha256: String? = nil, recursive: Bool? = nil, thumbnail: String? = nil, size: String? = nil,
        max: Int64? = nil, account: String? = nil, pageSize: Int64? = nil
    ) {
        self.sha256 = sha256
        self.recursive = recursive
        self.thumbnail = thumbnail
        self.size = size
        self.max = max
        self.account = account
        self.pageSize = pageSize
    }

    /// True when no option is set.
    public var isEmpty: Bool { self == FetchOptions() }

    /// Dropbox thumbnail sizes (`ThumbnailSize` in the API).
    public static let thumbnailSizes: [String] = [
        "w32h32", "w64h64", "w128h128", "w256h256", "w480h320", "w640h480", "w960h640", "w1024h768", "w2048h1536",
    ]

    /// Flickr size suffixes served from the photo URL with the ordinary secret (`o` needs the original secret).
    public static let flickrSizes: [String] = ["s", "q", "t", "m", "n", "w", "z", "c", "b", "h", "k"]
}
