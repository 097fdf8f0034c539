import FerryCore

/// One photo of a listing (`photos.photo[]` of `flickr.people.getPublicPhotos`).
public struct FlickrPhotoInfo: Sendable, Hashable {
    public var id: String
    public var owner: String
    public var secret: String
    public var server: String
    public var farm: Int?
    public var title: String
    /// With `extras=owner_name`.
    public var ownerName: String?
    /// Unix seconds, with `extras=date_upload`.
    public var dateUpload: Int64?

    public init(
        id: String, owner: String, secret: String, server: String, farm: Int? = nil, title: String,
        ownerName: String? = nil, dateUpload: Int64? = nil
    ) {
        self.id = id
        self.owner = owner
        self.secret = secret
        self.server = server
        self.farm = farm
        self.title = title
        self.ownerName = ownerName
        self.dateUpload = dateUpload
    }

    /// Reads one `photo` member; `nil` when a field the photo URL needs is missing.
    init?(json: JSONValue) {
        guard let id = json["id"]?.flickrText, let secret = json["secret"]?.flickrText, let server = json["server"]?.flickrText
        else { return nil }
        self.id = id
        self.secret = secret
        self.server = server
        owner = json["owner"]?.flickrText ?? ""
        farm = json["farm"]?.flickrInt.map { Int($0) }
        title = json["title"]?.flickrText ?? ""
        ownerName = json["ownername"]?.flickrText
        dateUpload = json["dateupload"]?.flickrInt
    }
}
