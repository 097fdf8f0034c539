import FerryFlickr
import FerryStore

extension AccountCredentials {
    /// The API key.
    public var flickrAPIKey: String? { secrets["api_key"] ?? legacySecret }

    /// The account's Flickr hosts: `apiURL` replaces the REST endpoint and `contentURL` the photo base where
    /// set, Flickr's real hosts otherwise.
    public var flickrEndpoints: FlickrEndpoints {
        FlickrEndpoints(
            rest: apiURL ?? FlickrEndpoints.production.rest,
            photos: contentURL ?? FlickrEndpoints.production.photos)
    }
}
