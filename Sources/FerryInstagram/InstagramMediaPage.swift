import FerryCore

/// One page of `/me/media` (or of an album's children): the items and the cursor of the next page, if any.
public struct InstagramMediaPage: Sendable, Equatable {
    public var items: [InstagramMedia]
    /// `paging.cursors.after` when `paging.next` says there is another page; `nil` on the last page.
    public var after: String?
    /// Entries without an id (ignored).
    public var malformed: Int

    public init(items: [InstagramMedia], after: String?, malformed: Int = 0) {
        self.items = items
        self.after = after
        self.malformed = malformed
    }

    /// The page in `json` (`{"data": [...], "paging": {"cursors": {"after"}, "next"}}`).
    public init(json: JSONValue) throws(InstagramError) {
        guard let data = json["data"]?.arrayValue else {
            throw InstagramError(code: .invalidResponse, message: "a media page without a data array")
        }
        let parsed = data.map(InstagramMedia.init(json:))
        items = parsed.compactMap { $0 }
        malformed = parsed.count - items.count
        let next = json["paging"]?["next"]?.stringValue
        let cursor = json["paging"]?["cursors"]?["after"]?.stringValue
        // Graph leaves out `next` on the last page; a cursor alone does not mean there is more.
        after = next == nil || cursor?.isEmpty != false || (cursor?.utf8.count ?? 0) > 2048 ? nil : cursor
    }
}
