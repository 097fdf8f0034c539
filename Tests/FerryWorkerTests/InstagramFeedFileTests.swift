import FerryCore
import FerryInstagram
import FerryTestSupport
import Foundation
import Testing

@testable import FerryWorker

/// What a hostile feed can and cannot do to file names, metadata and pacing (no process, no database).
@Suite("Instagram feed files", .tags(.fast))
struct InstagramFeedFileTests {
    let root = "/tmp/ig-root/"

    @Test("names come from numeric ids only: an id or caption with path tricks or control characters makes no child")
    func hostileIDs() {
        for id in ["../../escape", "12\u{1B}[31m34", "1/2", "", ".."] {
            let post = InstagramMedia(id: id, mediaType: "IMAGE", caption: "../../etc/passwd", mediaURL: "https://cdn/x.jpg")
            let files = InstagramFeedFile.files(of: post, in: nil, thumbnails: true)
            #expect(files.allSatisfy { InstagramFeedHandler.child($0, account: "me", jobID: UUID(), root: root) == nil }, "\(id.debugDescription)")
        }
        let album = InstagramMedia(id: "100", mediaType: "CAROUSEL_ALBUM")
        let child = InstagramMedia(id: "../101", mediaType: "IMAGE", mediaURL: "https://cdn/y.jpg")
        #expect(InstagramFeedFile.files(of: child, in: album, thumbnails: false).compactMap { InstagramFeedHandler.child($0, account: "me", jobID: UUID(), root: root) }.isEmpty)
    }

    @Test("images, videos (and covers) and album children are named by their ids inside the folder")
    func names() throws {
        let video = InstagramMedia(id: "200", mediaType: "VIDEO", mediaURL: "https://cdn/v.mp4", thumbnailURL: "https://cdn/t.jpg", username: "a")
        let files = InstagramFeedFile.files(of: video, in: nil, thumbnails: true)
        let children = files.compactMap { InstagramFeedHandler.child($0, account: "me", jobID: UUID(), root: root) }
        #expect(children.map(\.destination) == [root + "200.mp4", root + "200.thumb.jpg"])
        #expect(children.map(\.source) == ["instagram:me/media/200", "instagram:me/media/200/thumbnail"])
        #expect(children.allSatisfy { $0.account == nil })
        let album = InstagramMedia(id: "300", mediaType: "CAROUSEL_ALBUM", username: "b", likeCount: 9)
        let inAlbum = InstagramFeedFile.files(of: InstagramMedia(id: "301", mediaType: "IMAGE", mediaURL: "https://cdn/i.jpg"), in: album, thumbnails: false)
        let albumChild = try #require(inAlbum.compactMap { InstagramFeedHandler.child($0, account: "me", jobID: UUID(), root: root) }.first)
        #expect(albumChild.destination == root + "300_301.jpg")
        #expect(albumChild.metadata?["album_id"] == .string("300"))
        #expect(albumChild.metadata?["like_count"] == .int(9))
        #expect(albumChild.metadata?["username"] == .string("b"))
    }

    @Test("captions and usernames lose control characters and bidi overrides; permalinks must be plain https")
    func metadataIsShowable() {
        let post = InstagramMedia(
            id: "400", mediaType: "IMAGE", caption: "line one\n\u{1B}[2J\u{1B}]0;owned\u{07}two\u{202E}gpj", mediaURL: "https://cdn/a.jpg",
            permalink: "javascript:alert(1)", timestamp: "2024-01-02T03:04:05+0000", username: "evil\u{1B}[31m\nname", likeCount: -5)
        let metadata = InstagramFeedFile(item: post, post: post, thumbnail: false).metadata
        #expect(metadata["caption"] == .string("line one\n[2J]0;ownedtwogpj"))
        #expect(metadata["username"] == .string("evil31mname"))
        #expect(metadata["permalink"] == nil)
        #expect(metadata["like_count"] == nil)
        #expect(metadata["posted"] == .string("2024-01-02T03:04:05Z"))
    }

    @Test("usage headers: the largest percentage counts; a blocked use case pauses the account; junk is ignored")
    func usage() {
        let usage = InstagramUsage.parse(
            appUsage: "{\"call_count\":42,\"total_cputime\":7,\"total_time\":90}",
            businessUsage: "{\"1\":[{\"type\":\"instagram\",\"call_count\":12,\"estimated_time_to_regain_access\":3}]}")
        #expect(usage == InstagramUsage(percent: 90, minutesToRegainAccess: 3))
        #expect(InstagramUsage.parse(appUsage: "not json", businessUsage: "[1]") == nil)
        #expect(InstagramUsage.parse(appUsage: "{\"call_count\":1e300}", businessUsage: nil) == nil)
        let pace = InstagramPace()
        #expect(pace.delay(account: "a").wait == .zero)
        pace.record(InstagramUsage(percent: 96), account: "a")
        #expect(pace.delay(account: "a").paused)
        pace.record(InstagramUsage(percent: 85), account: "a")
        let first = pace.delay(account: "a"), second = pace.delay(account: "a")
        #expect(!first.paused && second.wait > .seconds(1))
    }

    @Test("rate-limit codes 4, 17, 32 and 613 defer without an attempt; 190 holds; nothing echoes the token")
    func failures() {
        for code in [4, 17, 32, 613] {
            let error = InstagramClient.failure("media", status: 400, body: "{\"error\":{\"code\":\(code),\"message\":\"limit\"}}", usage: nil, secrets: [])
            guard case .rateLimited = error.jobFailure(doing: "x").kind else {
                Issue.record("code \(code) is not deferred")
                continue
            }
        }
        let expired = InstagramClient.failure(
            "me", status: 400, body: "{\"error\":{\"code\":190,\"message\":\"token IGQWsecret expired\"}}", usage: nil, secrets: ["IGQWsecret"])
        #expect(expired.code == .invalidToken)
        #expect(expired.jobFailure(doing: "x").kind == .held)
        #expect(!expired.description.contains("IGQWsecret"))
    }
}
