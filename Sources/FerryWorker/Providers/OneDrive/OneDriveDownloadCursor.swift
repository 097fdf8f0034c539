import FerryCore

/// The resumable state of a OneDrive download: the durable bytes of the temporary file and the content version they
/// belong to (another version starts over).
struct OneDriveDownloadCursor: Sendable, Equatable {
    var offset: Int64
    var version: String

    init(offset: Int64, version: String) {
        self.offset = offset
        self.version = version
    }

    init?(session: String?) {
        guard let session, let json = try? JSONValue.parse(session), let offset = json["offset"]?.intValue, offset >= 0,
            let version = json["version"]?.stringValue
        else { return nil }
        self.init(offset: offset, version: version)
    }

    var json: JSONValue { .object(["offset": .int(offset), "version": .string(version)]) }
}
