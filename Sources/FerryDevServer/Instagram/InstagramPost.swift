import FerryCore
import Foundation

/// One emulated media item: a post (image, video or album) or an album's child. Its bytes are made from its id,
/// so every run of the server serves the same content.
struct InstagramPost: Sendable {
    var id: String
    var mediaType: String
    var caption: String?
    var timestamp: String
    var likes: Int64
    var comments: Int64
    var children: [InstagramPost] = []

    /// Post number `index` of a deterministic feed: every tenth from the fourth a video, from the eighth an album
    /// of an image, a video and an image; the rest images.
    static func generated(index: Int, id: Int64, username: String) -> InstagramPost {
        let kind = index % 10
        let mediaType = kind == 3 ? "VIDEO" : kind == 7 ? "CAROUSEL_ALBUM" : "IMAGE"
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'+0000'"
        let time = formatter.string(from: Date(timeIntervalSince1970: 1_704_067_200 + Double(index) * 3600))
        var post = InstagramPost(
            id: String(id), mediaType: mediaType, caption: "Post \(index) by @\(username) #ferry", timestamp: time,
            likes: Int64(index * 7 % 101), comments: Int64(index % 13))
        if mediaType == "CAROUSEL_ALBUM" {
            post.children = ["IMAGE", "VIDEO", "IMAGE"].enumerated().map { offset, type in
                InstagramPost(id: String(id * 10 + Int64(offset) + 1), mediaType: type, timestamp: time, likes: 0, comments: 0)
            }
        }
        return post
    }

    /// The bytes of the item (or of its cover): a few KiB that start like a JPEG or an MP4, from the id.
    static func content(id: String, thumbnail: Bool, video: Bool) -> [UInt8] {
        var state = UInt64(truncatingIfNeeded: id.utf8.reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 })
        state ^= thumbnail ? 0x9E37_79B9 : 0
        let size = 1024 + Int(state % 4096)
        var bytes: [UInt8] = video && !thumbnail ? [0, 0, 0, 0x18] + Array("ftypmp42".utf8) : [0xFF, 0xD8, 0xFF, 0xE0]
        while bytes.count < size {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            bytes.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        return video && !thumbnail ? bytes : bytes + [0xFF, 0xD9]
    }
}
