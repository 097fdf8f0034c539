import FerryCore

/// The resumable state of a OneDrive folder listing, recorded with each page's children: the `@odata.nextLink` after
/// the last page whose children are queued, and the counts so far.
struct OneDriveListingCursor: Sendable, Equatable {
    var nextLink: String?
    var complete = false
    var pages: Int64 = 0
    var listed: Int64 = 0
    var files: Int64 = 0
    var folders: Int64 = 0
    var skippedUnsafe: Int64 = 0

    init() {}

    init?(session: String?) {
        guard let session, let json = try? JSONValue.parse(session), json["pages"] != nil else { return nil }
        nextLink = json["next_link"]?.stringValue
        complete = json["complete"] == .bool(true)
        pages = json["pages"]?.intValue ?? 0
        listed = json["listed"]?.intValue ?? 0
        files = json["files"]?.intValue ?? 0
        folders = json["folders"]?.intValue ?? 0
        skippedUnsafe = json["skipped_unsafe"]?.intValue ?? 0
    }

    var json: JSONValue {
        var members = counts
        members["complete"] = .bool(complete)
        if let nextLink { members["next_link"] = .string(nextLink) }
        return .object(members)
    }

    var result: JSONValue { .object(counts) }

    private var counts: [String: JSONValue] {
        ["pages": .int(pages), "listed": .int(listed), "files": .int(files), "folders": .int(folders), "skipped_unsafe": .int(skippedUnsafe)]
    }
}
