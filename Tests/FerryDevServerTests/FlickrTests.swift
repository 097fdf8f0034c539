import FerryTestSupport
import Foundation
import Testing
@testable import FerryDevServer

@Suite("Flickr stand-in", .tags(.fast))
struct FlickrTests {
    static let key = "ferry-dev-flickr"

    private func page(_ h: DevServerHarness, user: String, page: Int, perPage: Int = 100) async throws -> HTTPResult {
        try await h.flickr("method=flickr.people.getPublicPhotos&api_key=\(Self.key)&user_id=\(user.replacingOccurrences(of: "@", with: "%40"))"
            + "&per_page=\(perPage)&page=\(page)&format=json&nojsoncallback=1")
    }

    /// Pages through a 250-photo stream and returns the photos in order.
    private func listAll(_ h: DevServerHarness, user: String) async throws -> (photos: [[String: Any]], bodies: [String]) {
        var photos: [[String: Any]] = []
        var bodies: [String] = []
        for number in 1...3 {
            let result = try await page(h, user: user, page: number)
            #expect(result.status == 200)
            #expect(result.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(result.json["stat"] as? String == "ok")
            let block = try #require(result.json["photos"] as? [String: Any])
            #expect(block["page"] as? Int == number)
            #expect(block["pages"] as? Int == 3)
            #expect(block["perpage"] as? Int == 100)
            photos += try #require(block["photo"] as? [[String: Any]])
            bodies.append(result.text)
        }
        return (photos, bodies)
    }

    @Test("getPublicPhotos pages through 250 photos with total as a string, exactly as seeded")
    func pagingTotalAsString() async throws {
        try await DevServerHarness.run { h in
            let seeded = try h.server.seedFlickrUser(userID: "12345678@N01", count: 250)
            #expect(seeded.count == 250)
            let (photos, bodies) = try await listAll(h, user: "12345678@N01")
            #expect(photos.count == 250)
            #expect(Set(photos.compactMap { $0["id"] as? String }).count == 250)
            #expect(photos.compactMap { $0["id"] as? String } == seeded.map(\.id), "newest first, in seeding order")
            #expect(photos.compactMap { $0["title"] as? String } == seeded.map(\.title))
            #expect(seeded.contains { $0.title.unicodeScalars.contains { $0.value > 0x7F } }, "some titles are non-ASCII")
            let first = try #require(photos.first)
            #expect(first["owner"] as? String == "12345678@N01")
            #expect(first["secret"] as? String == seeded[0].secret)
            #expect(first["server"] as? String == seeded[0].server)
            #expect(first["farm"] as? Int == 66)
            #expect(first["ispublic"] as? Int == 1 && first["isfriend"] as? Int == 0 && first["isfamily"] as? Int == 0)
            #expect(bodies[0].contains(#""total":"250""#))
            #expect(bodies[0].hasPrefix(#"{"photos":{"page":1,"pages":3,"perpage":100,"total":"250","photo":[{"id":""#))
            #expect(bodies[0].hasSuffix(#"]},"stat":"ok"}"#))

            // Deterministic: seeding again gives the same photos.
            #expect(try h.server.seedFlickrUser(userID: "12345678@N01", count: 250) == seeded)

            let beyond = try await page(h, user: "12345678@N01", page: 4)
            let beyondBlock = try #require(beyond.json["photos"] as? [String: Any])
            #expect((beyondBlock["photo"] as? [Any])?.count == 0)
            #expect(beyondBlock["page"] as? Int == 4)
            #expect(h.server.stats().flickrCallsPerMethod["flickr.people.getPublicPhotos"] == 4)
        }
    }

    @Test("total as a number for users seeded so through /__dev/flickr/users")
    func pagingTotalAsNumber() async throws {
        try await DevServerHarness.run { h in
            let seeded = try await h.request(.POST, "/__dev/flickr/users",
                                              body: Array(#"{"user_id":"99999999@N05","count":250,"total_as":"number"}"#.utf8))
            #expect(seeded.status == 200)
            #expect((seeded.json["photos"] as? [Any])?.count == 250)
            #expect(seeded.json["total_as"] as? String == "number")
            let (photos, bodies) = try await listAll(h, user: "99999999@N05")
            #expect(photos.count == 250)
            #expect(Set(photos.compactMap { $0["id"] as? String }).count == 250)
            #expect(bodies.allSatisfy { $0.contains(#""total":250,"#) })
            let first = try await page(h, user: "99999999@N05", page: 1)
            #expect((first.json["photos"] as? [String: Any])?["total"] as? Int == 250)
        }
    }

    @Test("failures are HTTP 200 with stat fail and Flickr's codes; JSONP, XML and per_page clamping")
    func failuresAndFormats() async throws {
        try await DevServerHarness.run { h in
            try h.server.seedFlickrUser(userID: "1@N01", count: 3)
            let json = "format=json&nojsoncallback=1"

            let badKey = try await h.flickr("method=flickr.people.getPublicPhotos&api_key=nope&user_id=1%40N01&\(json)")
            #expect(badKey.status == 200)
            #expect(badKey.text == #"{"stat":"fail","code":100,"message":"Invalid API Key (Key has invalid format)"}"#)
            let unknownKey = try await h.flickr("method=flickr.people.getPublicPhotos&api_key=0123456789abcdef0123456789abcdef&user_id=1%40N01&\(json)")
            #expect(unknownKey.json["code"] as? Int == 100)
            #expect(unknownKey.json["message"] as? String == "Invalid API Key (Key not found)")
            let noUser = try await h.flickr("method=flickr.people.getPublicPhotos&api_key=\(Self.key)&user_id=2%40N01&\(json)")
            #expect(noUser.status == 200)
            #expect(noUser.json["stat"] as? String == "fail")
            #expect(noUser.json["code"] as? Int == 1)
            #expect(noUser.json["message"] as? String == "User not found")
            let noMethod = try await h.flickr("method=x&api_key=\(Self.key)&\(json)")
            #expect(noMethod.status == 200)
            #expect(noMethod.json["code"] as? Int == 112)
            #expect(noMethod.json["message"] as? String == #"Method "x" not found"#)

            let jsonp = try await h.flickr("method=flickr.people.getPublicPhotos&api_key=\(Self.key)&user_id=1%40N01&format=json")
            #expect(jsonp.text.hasPrefix(#"jsonFlickrApi({"photos":{"page":1,"pages":1,"perpage":100,"total":"3","photo":["#))
            #expect(jsonp.text.hasSuffix(#""stat":"ok"})"#))
            let jsonpFailure = try await h.flickr("method=x&format=json")
            #expect(jsonpFailure.text == #"jsonFlickrApi({"stat":"fail","code":112,"message":"Method \"x\" not found"})"#)

            let xml = try await h.flickr("method=flickr.people.getPublicPhotos&api_key=\(Self.key)&user_id=1%40N01")
            #expect(xml.header("Content-Type")?.hasPrefix("text/xml") == true)
            #expect(xml.text.contains(#"<rsp stat="ok">"#))
            #expect(xml.text.contains(#"<photos page="1" pages="1" perpage="100" total="3">"#))
            #expect(xml.text.components(separatedBy: "<photo ").count == 4)

            let clamped = try await h.flickr("method=flickr.people.getPublicPhotos&api_key=\(Self.key)&user_id=1%40N01&per_page=1000&\(json)")
            #expect((clamped.json["photos"] as? [String: Any])?["perpage"] as? Int == 500)
            let small = try await h.flickr("method=flickr.people.getPublicPhotos&api_key=\(Self.key)&user_id=1%40N01&per_page=2&page=2&\(json)")
            let smallBlock = try #require(small.json["photos"] as? [String: Any])
            #expect(smallBlock["pages"] as? Int == 2)
            #expect((smallBlock["photo"] as? [Any])?.count == 1)

            let stats = h.server.stats().flickrCallsPerMethod
            #expect(stats["x"] == 2)
            #expect(stats["flickr.people.getPublicPhotos"] == 7)
        }
    }

    @Test("extra API keys from the configuration are accepted; url_ extras point at the photo host")
    func keysAndExtras() async throws {
        try await DevServerHarness.run(configure: { $0.additionalFlickrAPIKeys = ["second-key"] }) { h in
            let photos = try h.server.seedFlickrUser(userID: "7@N02", count: 2)
            let result = try await h.flickr("method=flickr.people.getPublicPhotos&api_key=second-key&user_id=7%40N02&extras=url_z,url_sq&format=json&nojsoncallback=1")
            #expect(result.json["stat"] as? String == "ok")
            let first = try #require(((result.json["photos"] as? [String: Any])?["photo"] as? [[String: Any]])?.first)
            let url = try #require(first["url_z"] as? String)
            #expect(url == h.baseURL + photos[0].path(suffix: "z"))
            #expect(result.text.contains(#"http:\/\/"#), "slashes are escaped like Flickr's JSON")
            #expect(first["width_z"] as? Int == photos[0].dimensions(suffix: "z")?.width)
            #expect(first["height_sq"] as? Int == 75)

            let photo = try await h.request(.GET, String(url.dropFirst(h.baseURL.count)))
            #expect(photo.status == 200)
            let probe = ImageProbe.probe(photo.body)
            #expect(probe?.width == first["width_z"] as? Int)
            #expect(probe?.height == first["height_z"] as? Int)
        }
    }

    @Test("photo files are real JPEGs sized by suffix, distinct per photo, cached, 404 for a wrong secret")
    func photoFiles() async throws {
        try await DevServerHarness.run { h in
            let photos = try h.server.seedFlickrUser(userID: "12345678@N01", count: 3)
            var bodies: [[UInt8]] = []
            for photo in photos {
                let result = try await h.request(.GET, photo.path(suffix: "z"))
                #expect(result.status == 200)
                #expect(result.header("Content-Type") == "image/jpeg")
                #expect(Array(result.body.prefix(2)) == [0xFF, 0xD8])
                #expect(Array(result.body.suffix(2)) == [0xFF, 0xD9])
                #expect(result.body.count < 20_000, "small")
                let probe = try #require(ImageProbe.probe(result.body))
                #expect(max(probe.width ?? 0, probe.height ?? 0) == 640)
                bodies.append(result.body)
            }
            #expect(Set(bodies).count == 3, "different photos have different bytes")

            let sizes: [(String?, Int)] = [("s", 75), ("q", 150), ("t", 100), ("m", 240), ("n", 320), ("w", 400), (nil, 500), ("c", 800), ("b", 1024)]
            for (suffix, side) in sizes {
                let result = try await h.request(.GET, photos[0].path(suffix: suffix))
                #expect(result.status == 200, "suffix \(suffix ?? "none")")
                let probe = try #require(ImageProbe.probe(result.body))
                #expect(max(probe.width ?? 0, probe.height ?? 0) == side, "suffix \(suffix ?? "none")")
                if suffix == "s" || suffix == "q" { #expect(probe.width == probe.height) }
                #expect((probe.width, probe.height) == (photos[0].dimensions(suffix: suffix)?.width, photos[0].dimensions(suffix: suffix)?.height))
            }

            let again = try await h.request(.GET, photos[0].path(suffix: "z"))
            #expect(again.body == bodies[0])
            let etag = try #require(again.header("ETag"))
            #expect(etag.hasPrefix("\""))
            let ranged = try await h.request(.GET, photos[0].path(suffix: "z"), headers: [("Range", "bytes=2-9")])
            #expect(ranged.status == 206)
            #expect(ranged.body == Array(bodies[0][2...9]))

            var wrong = photos[0]
            wrong.secret = "0000000000"
            #expect(try await h.request(.GET, wrong.path(suffix: "z")).status == 404)
            var unknown = photos[0]
            unknown.id = "1"
            #expect(try await h.request(.GET, unknown.path(suffix: "z")).status == 404)
            var otherServer = photos[0]
            otherServer.server = "1"
            #expect(try await h.request(.GET, otherServer.path()).status == 404)
            #expect(try await h.request(.GET, photos[0].path(suffix: "x")).status == 404)

            let stats = h.server.stats()
            #expect(stats.flickrPhotoDownloadsPerPath[photos[0].path(suffix: "z")] == 3)
            #expect(stats.flickrPhotoDownloadsPerPath[photos[1].path(suffix: "z")] == 1)
            #expect(stats.flickrBytesSent > 0)
            #expect(stats.requestsPerRoute["flickr/photos"] == 3 + sizes.count + 2 + 4)
        }
    }

    @Test("seeded users survive a restart")
    func persistence() async throws {
        let storage = DevServerHarness.temporaryStorage()
        defer { try? FileManager.default.removeItem(atPath: storage) }
        var photos: [FlickrPhoto] = []
        try await DevServerHarness.run(storage: storage) { h in
            photos = try h.server.seedFlickrUser(userID: "5@N05", count: 5, totalAsString: false)
        }
        try await DevServerHarness.run(storage: storage) { h in
            let result = try await h.flickr("method=flickr.people.getPublicPhotos&api_key=\(Self.key)&user_id=5%40N05&format=json&nojsoncallback=1")
            #expect(result.text.contains(#""total":5,"#))
            #expect(try await h.request(.GET, photos[4].path(suffix: "t")).status == 200)
        }
    }
}
