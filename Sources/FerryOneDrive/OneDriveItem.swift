import AsyncHTTPClient
import FerryCore


/// A Graph `driveItem` (a file or a folder), as far as Ferry reads it.
public struct OneDriveItem: Sendable, Hashable {
    public var id: String
    public var name: String
    /// Bytes (a folder's is the total of its contents).
    public var size: Int64?
    public var isFolder: Bool
    /// `file.hashes.quickXorHash` (base64), stated for every file.
    public var quickXorHash: String?
    /// `file.hashes.sha256Hash` (uppercase hex at Microsoft; lowercased here), on some accounts only.
    public var sha256Hash: String?
    /// The entity tag of the item (changes with metadata too) and of its content (`cTag`).
    public var eTag: String?
    public var cTag: String?
    /// `fileSystemInfo.lastModifiedDateTime` when stated (the client's time), else `lastModifiedDateTime`.
    public var modified: String?
    /// `parentReference.path` (`/drive/root:/Photos`).
    public var parentPath: String?
    public var mimeType: String?

    public init(
        id: String, name: String, size: Int64? = nil, isFolder: Bool = false, quickXorHash: String? = nil, sha256Hash: String? = nil,
        eTag: String? = nil, cTag: String? = nil, modified: String? = nil, parentPath: String? = nil, mimeType: String? = nil
    ) {
        self.id = id
        self.name = name
        self.size = size
        self.isFolder = isFolder
        self.quickXorHash = quickXorHash
        self.sha256Hash = sha256Hash
        self.eTag = eTag
        self.cTag = cTag
        self.modified = modified
        self.parentPath = parentPath
        self.mimeType = mimeType
    }

    /// Parses a driveItem; `nil` without an `id` (or for a deleted item).
    public init?(json: JSONValue) {
        guard let id = json["id"]?.stringValue, !id.isEmpty, json["deleted"] == nil else { return nil }
        self.id = id
        name = json["name"]?.stringValue ?? ""
        size = json["size"]?.intValue
        isFolder = json["folder"] != nil || json["root"] != nil
        let hashes = json["file"]?["hashes"]
        quickXorHash = hashes?["quickXorHash"]?.stringValue
        sha256Hash = hashes?["sha256Hash"]?.stringValue?.lowercased()
        mimeType = json["file"]?["mimeType"]?.stringValue
        eTag = json["eTag"]?.stringValue
        cTag = json["cTag"]?.stringValue
        modified = json["fileSystemInfo"]?["lastModifiedDateTime"]?.stringValue ?? json["lastModifiedDateTime"]?.stringValue
        parentPath = json["parentReference"]?["path"]?.stringValue
    }

    /// What changes when the content does: the content tag, else the entity tag, else the hash.
    public var version: String? { cTag ?? eTag ?? quickXorHash }
}

/// One page of a folder's children.
public struct OneDriveChildren: Sendable {
    public var items: [OneDriveItem]
    /// `@odata.nextLink`: the whole URL of the next page; `nil` on the last.
    public var nextLink: String?

    public init(items: [OneDriveItem], nextLink: String?) {
        self.items = items
        self.nextLink = nextLink
    }
}

/// What `conflictBehavior` asks Graph to do when an item of the name is already there.
public enum OneDriveConflictBehavior: String, Sendable, CaseIterable {
    case replace, fail, rename
}

/// An upload session: where its ranges go, until when, and what it still expects.
public struct OneDriveUploadSession: Sendable, Equatable {
    /// The session URL (a capability: whoever has it can write the file; never logged).
    public var uploadURL: String
    public var expiration: String?
    /// The first byte of each range still missing (`nextExpectedRanges` `"N-"` or `"N-M"`), lowest first.
    public var nextExpected: [Int64]

    public init(uploadURL: String, expiration: String? = nil, nextExpected: [Int64] = [0]) {
        self.uploadURL = uploadURL
        self.expiration = expiration
        self.nextExpected = nextExpected
    }
}

/// Where an upload session stands after a range.
public enum OneDriveUploadStatus: Sendable, Equatable {
    /// 202: bytes still missing, starting at these offsets.
    case incomplete(nextExpected: [Int64])
    /// 200/201: every byte arrived and the item is stored.
    case complete(OneDriveItem)
}

/// A download whose bytes are still on the wire.
public struct OneDriveDownload: Sendable {
    /// 200, or 206 when a range was honoured.
    public var status: Int
    public var contentLength: Int64?
    /// First byte's offset from a 206 `Content-Range`.
    public var contentRangeStart: Int64?
    public var body: HTTPClientResponse.Body

    public init(status: Int, contentLength: Int64?, contentRangeStart: Int64?, body: HTTPClientResponse.Body) {
        self.status = status
        self.contentLength = contentLength
        self.contentRangeStart = contentRangeStart
        self.body = body
    }
}
