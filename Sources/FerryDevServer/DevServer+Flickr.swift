/// Seeding the Flickr stand-in (`/services/rest/` and `/flickr/photos/`).
extension DevServer {
    /// Creates or replaces a Flickr user with `count` public photos and returns them, newest
    /// first (the order `flickr.people.getPublicPhotos` lists them). Photos are deterministic
    /// per `(userID, index)`. `totalAsString` picks how `total` is sent: `"250"` or `250`
    /// (real Flickr does both). Also `POST /__dev/flickr/users`.
    @discardableResult
    public func seedFlickrUser(userID: String, count: Int, totalAsString: Bool = true) throws -> [FlickrPhoto] {
        guard count >= 0 else { throw DevServerError("count must not be negative") }
        return try backend.flickr.seed(FlickrUser(userID: userID, count: count, totalAsString: totalAsString))
    }

    /// `http://host:port/flickr/photos` once running: stands in for `https://live.staticflickr.com`,
    /// so a photo is at `{base}/{server}/{id}_{secret}_{suffix}.jpg`.
    public var flickrPhotoBaseURL: String? { baseURL.map { $0 + "/flickr/photos" } }

    /// `http://host:port/services/rest/` once running: stands in for `https://api.flickr.com/services/rest/`.
    public var flickrRESTURL: String? { baseURL.map { $0 + "/services/rest/" } }
}
