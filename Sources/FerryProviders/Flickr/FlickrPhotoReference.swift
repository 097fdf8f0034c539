import FerryCore

/// One photo of a photostream, as the fetch child its listing enqueues carries it (`spec.photo`, with the source
/// `flickr:USER_ID/photo/PHOTO_ID`): Flickr's identity of the photo file and no host. The worker builds the URL
/// from the account's photo base when the child runs, so a child that failed on a wrong base succeeds once
/// `ferry account update --content-url` fixes the account and `ferry retry` runs it again.
public struct FlickrPhotoReference: Codable, Sendable, Equatable {
    /// The photo's server (the URL's first path segment).
    public var server: String
    /// The photo's secret (part of its file name).
    public var secret: String
    /// The size suffix (`z`, `b` …); none means Flickr's medium 500.
    public var size: String?

    public init(server: String, secret: String, size: String? = nil) {
        self.server = server
        self.secret = secret
        self.size = size
    }

    /// The source of the child that fetches photo `photoID` of `userID`'s stream.
    public static func source(userID: String, photoID: String) -> String {
        "flickr:\(userID)/photo/\(photoID)"
    }

    /// The user and photo ids of a child's source, or `nil` when it is not one (a listing's `flickr:USER_ID`).
    public static func ids(inSource source: String) -> (userID: String, photoID: String)? {
        guard source.hasPrefix("flickr:") else { return nil }
        let parts = source.dropFirst("flickr:".count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1] == "photo" else { return nil }
        return (String(parts[0]), String(parts[2]))
    }

    /// Whether the parts of a photo URL (`PHOTOS/SERVER/ID_SECRET[_SIZE].jpg`) are what Flickr writes there: ids,
    /// servers and secrets of 1–64 ASCII letters and digits, a size among ``FlickrProvider/sizes``, and a valid
    /// user id. Anything else could move the URL off the account's photo host or up its path, so a child
    /// carrying it fails.
    public func isValid(userID: String, photoID: String) -> Bool {
        FlickrProvider.isValidUserID(userID) && Self.isToken(photoID) && Self.isToken(server) && Self.isToken(secret)
            && size.map(FlickrProvider.sizes.contains) ?? true
    }

    static func isToken(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy(EndpointSyntax.isAlphanumeric)
    }
}
