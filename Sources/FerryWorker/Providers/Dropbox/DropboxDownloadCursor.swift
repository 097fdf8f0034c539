import FerryCore

/// The resumable state of one Dropbox file download, recorded as the progress `session`:
/// `{"offset": N, "rev": …, "content_hash": …}`. `offset` bytes of revision `rev` are durable in the
/// temporary file.
struct DropboxDownloadCursor: Sendable, Equatable {
    var offset: Int64
    var rev: String
    var contentHash: String?

    /// The cursor an earlier attempt recorded, if it is usable.
    init?(session: String?) {
        guard let session, let json = try? JSONValue.parse(session), let offset = json["offset"]?.intValue, offset >= 0,
            let rev = json["rev"]?.stringValue
        else { return nil }
        self.init(offset: offset, rev: rev, contentHash: json["content_hash"]?.stringValue)
    }

    init(offset: Int64, rev: String, contentHash: String?) {
        self.offset = offset
        self.rev = rev
        self.contentHash = contentHash
    }

    var json: JSONValue {
        var members: [String: JSONValue] = ["offset": .int(offset), "rev": .string(rev)]
        if let contentHash { members["content_hash"] = .string(contentHash) }
        return .object(members)
    }
}
