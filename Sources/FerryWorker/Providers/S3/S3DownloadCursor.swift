import FerryCore

/// The resumable state of one object download: `offset` bytes of the version with `etag` are durable.
struct S3DownloadCursor: Sendable, Equatable {
    var offset: Int64
    var etag: String

    init(offset: Int64, etag: String) {
        self.offset = offset
        self.etag = etag
    }

    init?(session: String?) {
        guard let session, let json = try? JSONValue.parse(session), let offset = json["offset"]?.intValue, offset >= 0,
            let etag = json["etag"]?.stringValue
        else { return nil }
        self.init(offset: offset, etag: etag)
    }

    var json: JSONValue { .object(["offset": .int(offset), "etag": .string(etag)]) }
}
