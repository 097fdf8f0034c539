import FerryCore

/// The resumable state of a URL fetch, recorded as the progress session: where the temporary file is, how
/// many bytes of it are durable, and the validators that tell whether the remote file is still the same.
struct FetchCursor: Sendable, Equatable {
    var temp: String
    var offset: Int64
    var etag: String?
    var lastModified: String?
    var length: Int64?

    init(temp: String, offset: Int64, etag: String?, lastModified: String?, length: Int64?) {
        self.temp = temp
        self.offset = offset
        self.etag = etag
        self.lastModified = lastModified
        self.length = length
    }

    /// Reads an earlier attempt's session; `nil` when there is none or it is not a fetch cursor.
    init?(session: String?) {
        guard let session, let json = try? JSONValue.parse(session), let offset = json["offset"]?.intValue, offset >= 0,
            let temp = json["temp"]?.stringValue
        else { return nil }
        self.init(
            temp: temp, offset: offset, etag: json["etag"]?.stringValue, lastModified: json["last_modified"]?.stringValue,
            length: json["length"]?.intValue)
    }

    /// What `If-Range` carries: the ETag when it is strong (weak ones may not be used there), else
    /// `Last-Modified`; `nil` when neither is known (then resuming is unsafe).
    var validator: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    var json: JSONValue {
        var members: [String: JSONValue] = ["temp": .string(temp), "offset": .int(offset)]
        if let etag { members["etag"] = .string(etag) }
        if let lastModified { members["last_modified"] = .string(lastModified) }
        if let length { members["length"] = .int(length) }
        return .object(members)
    }
}
