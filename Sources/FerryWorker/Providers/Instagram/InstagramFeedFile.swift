import FerryCore
import FerryInstagram
import FerryProviders

/// One file a post contributes to the folder: an image's or video's bytes, an album child's, or a video's cover.
/// Its name is made of the (checked, numeric) ids only, never of the caption: `ID.jpg`, `ID.mp4`,
/// `ALBUM_CHILD.jpg`, `ID.thumb.jpg`. Its metadata is the post's, cleaned for display.
struct InstagramFeedFile: Sendable {
    /// The item whose bytes it is (an album's child for album files).
    var item: InstagramMedia
    /// The post it belongs to (the album for album children, the item itself otherwise).
    var post: InstagramMedia
    var thumbnail: Bool

    /// The files of `item`, a post or (with `album`) an album's child.
    static func files(of item: InstagramMedia, in album: InstagramMedia?, thumbnails: Bool) -> [InstagramFeedFile] {
        var files = [InstagramFeedFile(item: item, post: album ?? item, thumbnail: false)]
        if item.isVideo, thumbnails { files.append(InstagramFeedFile(item: item, post: album ?? item, thumbnail: true)) }
        return files
    }

    /// The signed link of its bytes.
    var url: String? { thumbnail ? item.thumbnailURL : item.mediaURL }

    /// Its name in the folder, or `nil` when an id is not an Instagram id (a hostile or broken answer).
    var fileName: String? {
        guard InstagramMediaReference.isValidID(item.id), InstagramMediaReference.isValidID(post.id) else { return nil }
        let base = post.id == item.id ? item.id : "\(post.id)_\(item.id)"
        if thumbnail { return base + ".thumb.jpg" }
        return base + (item.isVideo ? ".mp4" : ".jpg")
    }

    /// What `ferry.job_status` shows for the file: the post's username, time, caption, likes, comments and
    /// permalink, the item's type, and the album it is part of.
    var metadata: [String: JSONValue] {
        var metadata: [String: JSONValue] = ["instagram_id": .string(item.id), "media_type": .string(InstagramText.username(item.mediaType))]
        if post.id != item.id { metadata["album_id"] = .string(post.id) }
        if let username = post.username { metadata["username"] = .string(InstagramText.username(username)) }
        if let posted = post.timestamp.flatMap(InstagramText.timestamp) { metadata["posted"] = .string(posted) }
        if let caption = post.caption { metadata["caption"] = .string(InstagramText.caption(caption)) }
        if let likes = post.likeCount, likes >= 0 { metadata["like_count"] = .int(likes) }
        if let comments = post.commentsCount, comments >= 0 { metadata["comments_count"] = .int(comments) }
        if let permalink = post.permalink.flatMap(InstagramText.permalink) { metadata["permalink"] = .string(permalink) }
        if thumbnail { metadata["thumbnail"] = .bool(true) }
        return metadata
    }
}
