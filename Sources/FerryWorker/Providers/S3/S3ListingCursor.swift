import FerryCore

/// The resumable state of a prefix listing, recorded with each page's children: the continuation token after
/// the last fanned-out page and the counts so far.
struct S3ListingCursor: Sendable, Equatable {
    /// `ListObjectsV2` continuation token after the last fanned-out page; `nil` before the first page.
    var token: String?
    var complete = false
    var pages: Int64 = 0
    /// Child jobs handed to the fan-out (new or already queued).
    var files: Int64 = 0
    /// Keys without a safe local path, and folder markers (keys ending in `/`).
    var skipped: Int64 = 0
    /// Without `recursive`: the "subfolders" not descended into.
    var prefixesSkipped: Int64 = 0

    init() {}

    init?(session: String?) {
        guard let session, let json = try? JSONValue.parse(session), json["listing"] == .bool(true) else { return nil }
        token = json["token"]?.stringValue
        complete = json["complete"] == .bool(true)
        pages = json["pages"]?.intValue ?? 0
        files = json["files"]?.intValue ?? 0
        skipped = json["skipped"]?.intValue ?? 0
        prefixesSkipped = json["prefixes_skipped"]?.intValue ?? 0
    }

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "listing": .bool(true), "complete": .bool(complete), "pages": .int(pages), "files": .int(files),
            "skipped": .int(skipped), "prefixes_skipped": .int(prefixesSkipped),
        ]
        if let token { members["token"] = .string(token) }
        return .object(members)
    }

    var result: JSONValue {
        .object(["pages": .int(pages), "files": .int(files), "skipped": .int(skipped), "prefixes_skipped": .int(prefixesSkipped)])
    }
}
