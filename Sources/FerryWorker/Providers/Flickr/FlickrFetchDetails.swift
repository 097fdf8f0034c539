/// The details of a Flickr photostream fetch.
struct FlickrFetchDetails: Codable, Sendable, Equatable {
    /// The folder every photo is written into.
    var root: String
    /// The photo size suffix (`z`, `b` …); none means Flickr's medium 500.
    var sizeSuffix: String?
    /// Fetch at most this many photos.
    var max: Int64?

    enum CodingKeys: String, CodingKey {
        case root
        case sizeSuffix = "size"
        case max
    }
}
