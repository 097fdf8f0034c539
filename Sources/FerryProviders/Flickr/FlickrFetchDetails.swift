/// The details of a Flickr photostream fetch.
public struct FlickrFetchDetails: Codable, Sendable, Equatable {
    /// The folder every photo is written into.
    public var root: String
    /// The photo size suffix (`z`, `b` …); none means Flickr's medium 500.
    public var sizeSuffix: String?
    /// Fetch at most this many photos.
    public var max: Int64?

    enum CodingKeys: String, CodingKey {
        case root
        case sizeSuffix = "size"
        case max
    }

    public init(root: String, sizeSuffix: String? = nil, max: Int64? = nil) {
        self.root = root
        self.sizeSuffix = sizeSuffix
        self.max = max
    }
}
