import FerryCore

/// The resumable state of a multipart upload, recorded as the progress `session` after every part:
/// `{"upload_id", "key", "part_size", "part", "etag", "parts_done"}`. The store keeps the parts, so a new
/// attempt (on any machine) reconciles with `ListParts` and sends only what is missing.
struct S3UploadCursor: Sendable, Equatable {
    var uploadID: String
    var key: String
    var partSize: Int64
    /// The part this event records, and its ETag.
    var part: Int
    var etag: String?
    var partsDone: Int
    /// For a copy: the version of the source the parts are of (a resumed copy keeps them only for that version).
    var sourceVersion: String?

    init(uploadID: String, key: String, partSize: Int64, part: Int, etag: String?, partsDone: Int) {
        self.uploadID = uploadID
        self.key = key
        self.partSize = partSize
        self.part = part
        self.etag = etag
        self.partsDone = partsDone
    }

    /// The cursor an earlier attempt recorded, if it is one of this upload's.
    init?(session: String?, key: String) {
        guard let session, let json = try? JSONValue.parse(session), let uploadID = json["upload_id"]?.stringValue,
            json["key"]?.stringValue == key, let partSize = json["part_size"]?.intValue, partSize > 0
        else { return nil }
        self.init(
            uploadID: uploadID, key: key, partSize: partSize, part: Int(json["part"]?.intValue ?? 0),
            etag: json["etag"]?.stringValue, partsDone: Int(json["parts_done"]?.intValue ?? 0))
        sourceVersion = json["source_version"]?.stringValue
    }

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "upload_id": .string(uploadID), "key": .string(key), "part_size": .int(partSize), "part": .int(Int64(part)),
            "parts_done": .int(Int64(partsDone)),
        ]
        if let etag { members["etag"] = .string(etag) }
        if let sourceVersion { members["source_version"] = .string(sourceVersion) }
        return .object(members)
    }
}
