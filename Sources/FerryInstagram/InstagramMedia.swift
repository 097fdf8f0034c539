import FerryCore

/// One media item of a feed or an album's child, as Graph answers it. Every field is the service's (hostile)
/// text: callers check ids before using them in paths and clean captions before showing them.
public struct InstagramMedia: Sendable, Equatable {
    public var id: String
    /// `IMAGE`, `VIDEO` or `CAROUSEL_ALBUM`.
    public var mediaType: String
    public var caption: String?
    /// The signed CDN link of the bytes (expires).
    public var mediaURL: String?
    /// A video's cover image (signed, expires).
    public var thumbnailURL: String?
    public var permalink: String?
    /// ISO 8601 with a numeric offset (`2025-01-02T03:04:05+0000`).
    public var timestamp: String?
    public var username: String?
    public var likeCount: Int64?
    public var commentsCount: Int64?

    public init(
        id: String, mediaType: String, caption: String? = nil, mediaURL: String? = nil, thumbnailURL: String? = nil,
        permalink: String? = nil, timestamp: String? = nil, username: String? = nil, likeCount: Int64? = nil, commentsCount: Int64? = nil
    ) {
        self.id = id
        self.mediaType = mediaType
        self.caption = caption
        self.mediaURL = mediaURL
        self.thumbnailURL = thumbnailURL
        self.permalink = permalink
        self.timestamp = timestamp
        self.username = username
        self.likeCount = likeCount
        self.commentsCount = commentsCount
    }

    /// The item in `json`, or `nil` when it has no string id.
    public init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue else { return nil }
        self.init(
            id: id, mediaType: json["media_type"]?.stringValue ?? "", caption: json["caption"]?.stringValue,
            mediaURL: json["media_url"]?.stringValue, thumbnailURL: json["thumbnail_url"]?.stringValue,
            permalink: json["permalink"]?.stringValue, timestamp: json["timestamp"]?.stringValue, username: json["username"]?.stringValue,
            likeCount: json["like_count"]?.intValue, commentsCount: json["comments_count"]?.intValue)
    }

    public var isAlbum: Bool { mediaType == "CAROUSEL_ALBUM" }
    public var isVideo: Bool { mediaType == "VIDEO" }

    /// The fields a feed page asks for.
    public static let feedFields = "id,caption,media_type,media_url,permalink,thumbnail_url,timestamp,username,like_count,comments_count"
    /// The fields an album's children and a re-read of one item ask for.
    public static let childFields = "id,media_type,media_url,thumbnail_url,timestamp"
}
