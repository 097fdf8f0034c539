import FerryCore

/// One page of a photo listing. Flickr sends the counts as numbers or as strings (`"total": "1050"`), so
/// both are accepted.
public struct FlickrPhotoPage: Sendable, Hashable {
    public var page: Int
    public var pages: Int
    public var perPage: Int
    public var total: Int
    public var photos: [FlickrPhotoInfo]

    public init(page: Int, pages: Int, perPage: Int, total: Int, photos: [FlickrPhotoInfo]) {
        self.page = page
        self.pages = pages
        self.perPage = perPage
        self.total = total
        self.photos = photos
    }

    /// Reads the `photos` member of a `stat: ok` answer.
    init(json: JSONValue) throws(FlickrError) {
        guard let page = json["page"]?.flickrInt, let pages = json["pages"]?.flickrInt,
            let total = json["total"]?.flickrInt, case .array(let items)? = json["photo"]
        else {
            throw FlickrError(code: .invalidResponse, message: "the photos member lacks page, pages, total or photo")
        }
        self.page = Int(page)
        self.pages = Int(pages)
        self.perPage = Int((json["perpage"] ?? json["per_page"])?.flickrInt ?? Int64(items.count))
        self.total = Int(total)
        var photos = [FlickrPhotoInfo]()
        photos.reserveCapacity(items.count)
        for item in items {
            guard let photo = FlickrPhotoInfo(json: item) else {
                throw FlickrError(code: .invalidResponse, message: "a photo lacks id, secret or server")
            }
            photos.append(photo)
        }
        self.photos = photos
    }
}
