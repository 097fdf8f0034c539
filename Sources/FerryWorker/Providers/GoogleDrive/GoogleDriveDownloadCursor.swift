import FerryCore

/// The resumable state of a Drive download, recorded as the progress session: the durable bytes of the temporary file
/// and the revision they belong to (another revision starts over).
struct GoogleDriveDownloadCursor: Sendable, Equatable {
    var offset: Int64
    var revision: String

    init(offset: Int64, revision: String) {
        self.offset = offset
        self.revision = revision
    }

    init?(session: String?) {
        guard let session, let json = try? JSONValue.parse(session), let offset = json["offset"]?.intValue, offset >= 0,
            let revision = json["revision"]?.stringValue
        else { return nil }
        self.init(offset: offset, revision: revision)
    }

    var json: JSONValue { .object(["offset": .int(offset), "revision": .string(revision)]) }
}
