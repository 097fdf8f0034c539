import FerryFlickr
import Testing

@Suite("Flickr endpoints")
struct FlickrEndpointsTests {
    @Test("production hosts are Flickr's documented ones")
    func production() {
        #expect(FlickrEndpoints.production.rest == "https://api.flickr.com/services/rest/")
        #expect(FlickrEndpoints.production.photos == "https://live.staticflickr.com")
    }
}
