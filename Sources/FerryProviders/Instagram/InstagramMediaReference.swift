import FerryCore

/// One file of a feed, as the fetch child its listing enqueues carries it (`spec.media`, with the source
/// `instagram:ACCOUNT/media/ID`): the item's id, the signed link the listing saw, and which of the item's links it
/// is. A link that expired before the child ran is asked for again by id.
public struct InstagramMediaReference: Codable, Sendable, Equatable {
    /// The item's id (an album child's own id).
    public var id: String
    /// The signed CDN link as listed (expires; never logged: it carries a signature).
    public var url: String
    /// True for a video's cover image (`thumbnail_url`), false for the item's bytes (`media_url`).
    public var thumbnail: Bool

    public init(id: String, url: String, thumbnail: Bool = false) {
        self.id = id
        self.url = url
        self.thumbnail = thumbnail
    }

    /// The source of the child that fetches item `id` for `account`.
    public static func source(account: String, id: String, thumbnail: Bool = false) -> String {
        "instagram:\(account)/media/\(id)" + (thumbnail ? "/thumbnail" : "")
    }

    /// Instagram media ids are decimal numbers; anything else (`..`, slashes, control characters) could move a
    /// file name or an API path elsewhere, so an item whose id is not one is skipped and a child carrying it fails.
    public static func isValidID(_ id: String) -> Bool {
        (1...40).contains(id.utf8.count) && id.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
