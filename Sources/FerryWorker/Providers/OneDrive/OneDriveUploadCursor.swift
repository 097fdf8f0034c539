import FerryCore

/// The resumable state of a OneDrive upload, recorded as the progress session: the upload session URL and the
/// offset it expects next (another worker resumes there after a crash, asking the session first), and whether an
/// earlier attempt stored wrong bytes (the next one replaces them).
struct OneDriveUploadCursor: Sendable, Equatable {
    /// The session URL (a capability: whoever has it can write the file; never logged).
    var uploadURL: String?
    var offset: Int64 = 0
    var size: Int64
    /// An earlier attempt stored other bytes than sent: the next attempt replaces that file.
    var replace = false
    /// The version of a copy's source the session holds bytes of (`nil` for a local file).
    var version: String?

    init(uploadURL: String?, offset: Int64, size: Int64, replace: Bool = false, version: String? = nil) {
        self.uploadURL = uploadURL
        self.offset = offset
        self.size = size
        self.replace = replace
        self.version = version
    }

    /// An earlier attempt's record for a file of `size` bytes; `nil` when there is none (or it was for another size).
    init?(session text: String?, size: Int64) {
        guard let text, let json = try? JSONValue.parse(text), json["size"]?.intValue == size else { return nil }
        self.size = size
        uploadURL = json["onedrive_session"]?.stringValue
        offset = min(size, max(0, json["offset"]?.intValue ?? 0))
        replace = json["replace"]?.boolValue ?? false
        version = json["source_version"]?.stringValue
    }

    var json: JSONValue {
        var members: [String: JSONValue] = ["offset": .int(offset), "size": .int(size)]
        if let uploadURL { members["onedrive_session"] = .string(uploadURL) }
        if replace { members["replace"] = .bool(true) }
        if let version { members["source_version"] = .string(version) }
        return .object(members)
    }
}
