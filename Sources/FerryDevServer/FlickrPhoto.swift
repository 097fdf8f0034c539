/// One public photo of a seeded Flickr user (see ``DevServer/seedFlickrUser(userID:count:totalAsString:)``).
/// Every field is derived from the user id and the photo's position, so the same seed gives
/// the same photos in every run.
public struct FlickrPhoto: Sendable, Equatable {
    /// Numeric photo id, as a string like Flickr's.
    public var id: String
    /// NSID of the owner (`12345678@N01`).
    public var owner: String
    /// Part of every photo URL; a wrong secret is a 404.
    public var secret: String
    /// Server part of the photo URL.
    public var server: String
    /// Always 66, as Flickr reports today.
    public var farm: Int
    /// Title; some are non-ASCII, one kind is empty and one contains a slash.
    public var title: String
    /// Position in the user's photo stream (0 is the newest, listed first).
    public var index: Int
    /// Width of the largest served version (`_b`, 1024 on the long side).
    public var width: Int
    /// Height of the largest served version.
    public var height: Int
    /// Upload time (seconds since 1970), sent as `Last-Modified` by the photo host.
    public var uploaded: Int64

    /// URL path of the photo on the dev server: `/flickr/photos/{server}/{id}_{secret}_{suffix}.jpg`,
    /// or `..._{secret}.jpg` without a suffix (the 500 px size). Append it to the server's base URL.
    public func path(suffix: String? = nil) -> String {
        let tail = suffix.map { $0.isEmpty ? "" : "_" + $0 } ?? ""
        return "/flickr/photos/\(server)/\(id)_\(secret)\(tail).jpg"
    }

    /// Pixel size served for a suffix (`s`, `q`, `t`, `m`, `n`, `w`, `z`, `c`, `b`, or `nil`
    /// for 500 px); `nil` for an unknown suffix.
    public func dimensions(suffix: String?) -> (width: Int, height: Int)? {
        guard let size = FlickrPhotoSize(suffix: suffix) else { return nil }
        return dimensions(size)
    }

    func dimensions(_ size: FlickrPhotoSize) -> (width: Int, height: Int) {
        let side = size.longestSide
        if size.isSquare { return (side, side) }
        if width >= height { return (side, max(1, (side * height + width / 2) / width)) }
        return (max(1, (side * width + height / 2) / height), side)
    }
}
