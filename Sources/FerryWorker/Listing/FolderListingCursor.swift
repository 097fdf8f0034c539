import FerryCore

/// The resumable state of a folder listing fanned out page by page, recorded as the progress session with each
/// page's children: the continuation after the last page whose children are queued, and the counts so far.
struct FolderListingCursor<Paging: FolderPaging>: Sendable, Equatable {
    /// Where the listing goes on; `nil` before the first page.
    var continuation: String?
    var complete = false
    var pages: Int64 = 0
    /// Items seen (files, folders and whatever else the folder holds).
    var listed: Int64 = 0
    var files: Int64 = 0
    var folders: Int64 = 0
    var skippedUnsafe: Int64 = 0
    /// Items skipped for the provider's own reason (``FolderPaging/skippedOwnKey``).
    var skippedOwn: Int64 = 0

    init() {}

    init?(session: String?) {
        guard let session, let json = try? JSONValue.parse(session), json["pages"] != nil else { return nil }
        continuation = json[Paging.continuationKey]?.stringValue
        complete = json["complete"] == .bool(true)
        pages = json["pages"]?.intValue ?? 0
        listed = json["listed"]?.intValue ?? 0
        files = json["files"]?.intValue ?? 0
        folders = json["folders"]?.intValue ?? 0
        skippedUnsafe = json["skipped_unsafe"]?.intValue ?? 0
        if let key = Paging.skippedOwnKey { skippedOwn = json[key]?.intValue ?? 0 }
    }

    var json: JSONValue {
        var members = counts
        members["complete"] = .bool(complete)
        if let continuation { members[Paging.continuationKey] = .string(continuation) }
        return .object(members)
    }

    /// The job's result details.
    var result: JSONValue { .object(counts) }

    private var counts: [String: JSONValue] {
        var counts: [String: JSONValue] = [
            "pages": .int(pages), "listed": .int(listed), "files": .int(files), "folders": .int(folders),
            "skipped_unsafe": .int(skippedUnsafe),
        ]
        if let key = Paging.skippedOwnKey { counts[key] = .int(skippedOwn) }
        return counts
    }
}
