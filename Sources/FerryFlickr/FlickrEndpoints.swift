/// Where the Flickr API and photo files live. Defaults are Flickr's real hosts; a local dev server can stand in.
public struct FlickrEndpoints: Sendable, Hashable {
    /// The REST endpoint (`https://api.flickr.com/services/rest/`).
    public var rest: String
    /// The base of photo URLs (`https://live.staticflickr.com`): a photo is `{photos}/{server}/{id}_{secret}_{size}.jpg`.
    public var photos: String

    public init(rest: String, photos: String) {
        self.rest = rest
        self.photos = photos
    }

    /// Flickr's real hosts.
    public static let production = FlickrEndpoints(
        rest: "https://api.flickr.com/services/rest/", photos: "https://live.staticflickr.com")
}
