import FerryCore

/// The resumable state of a Drive upload, recorded as the progress session: the resumable session URI and how many
/// bytes it holds (another worker resumes there after a crash, asking the session first), the file a session writes
/// a new revision of, and a file an earlier attempt stored with the wrong content (the next attempt replaces it).
struct GoogleDriveUploadCursor: Sendable, Equatable {
    /// The session URI (a capability: whoever has it can write the file; never logged).
    var session: String?
    var offset: Int64 = 0
    var size: Int64
    /// The file the session writes a new revision of; `nil` when it creates one.
    var fileID: String?
    /// A file an earlier attempt stored with other bytes than sent: the next attempt writes a revision of it.
    var replaceID: String?
    /// The version of a copy's source the session holds bytes of (`nil` for a local file).
    var version: String?

    init(session: String?, offset: Int64, size: Int64, fileID: String?, replaceID: String?) {
        self.session = session
        self.offset = offset
        self.size = size
        self.fileID = fileID
        self.replaceID = replaceID
    }

    /// An earlier attempt's record for a file of `size` bytes; `nil` when there is none (or it was for another size).
    init?(session text: String?, size: Int64) {
        guard let text, let json = try? JSONValue.parse(text), json["size"]?.intValue == size else { return nil }
        self.size = size
        session = json["gdrive_session"]?.stringValue
        offset = min(size, max(0, json["offset"]?.intValue ?? 0))
        fileID = json["file_id"]?.stringValue
        replaceID = json["replace_id"]?.stringValue
        version = json["source_version"]?.stringValue
    }

    var json: JSONValue {
        var members: [String: JSONValue] = ["offset": .int(offset), "size": .int(size)]
        if let session { members["gdrive_session"] = .string(session) }
        if let fileID { members["file_id"] = .string(fileID) }
        if let replaceID { members["replace_id"] = .string(replaceID) }
        if let version { members["source_version"] = .string(version) }
        return .object(members)
    }
}
