import FerryTestSupport
@testable import FerryFlickr
import Testing

@Suite("Flickr answers", .tags(.fast))
struct FlickrParsingTests {
    @Test("a jsonFlickrApi(…) wrapper is unwrapped")
    func wrapped() throws {
        let json = try FlickrClient.parse(#" jsonFlickrApi({"stat":"ok","photos":{"page":1,"pages":"1","perpage":2,"total":"0","photo":[]}}) "#, method: "m")
        #expect(json["stat"]?.stringValue == "ok")
        let page = try FlickrPhotoPage(json: json["photos"]!)
        #expect(page.pages == 1 && page.total == 0 && page.photos.isEmpty)
    }

    @Test("text that is not JSON is an invalid response")
    func garbage() {
        #expect(throws: FlickrError.self) { try FlickrClient.parse("<rsp stat=\"fail\">", method: "m") }
    }

    @Test("query values are percent-encoded")
    func encoding() {
        #expect(FlickrClient.percentEncoded("12345678@N00") == "12345678%40N00")
        #expect(FlickrClient.percentEncoded("a b&c=d/é") == "a%20b%26c%3Dd%2F%C3%A9")
    }
}
