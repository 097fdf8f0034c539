import FerryCore

/// The resumable state of a Dropbox folder listing, recorded as the progress `session` with each page's
/// children: the cursor after the last page whose children are queued, and the counts so far (so the result
/// covers every page, whichever attempt listed it).
struct DropboxListingCursor: Sendable, Equatable {
    /// `list_folder/continue` cursor after the last fanned-out page; `nil` before the first page.
    var cursor: String?
    /// True once the page with `has_more: false` was fanned out.
    var complete = false
    /// Entries seen (files, folders, deleted).
    var listed: Int64 = 0
    /// Child jobs handed to the fan-out (new or already queued).
    var files: Int64 = 0
    var skippedUnsafe: Int64 = 0
    var skippedNotImage: Int64 = 0
    var pages: Int64 = 0
    /// Times Dropbox expired the cursor and the listing started over (kept across the restart).
    var resets: Int64 = 0

    init() {}

    /// The cursor an earlier attempt recorded, if any.
    init?(session: String?) {
        guard let session, let json = try? JSONValue.parse(session), let cursor = json["cursor"]?.stringValue else { return nil }
        self.cursor = cursor
        complete = json["complete"] == .bool(true)
        listed = json["listed"]?.intValue ?? 0
        files = json["files"]?.intValue ?? 0
        skippedUnsafe = json["skipped_unsafe"]?.intValue ?? 0
        skippedNotImage = json["skipped_not_image"]?.intValue ?? 0
        pages = json["pages"]?.intValue ?? 0
        resets = json["resets"]?.intValue ?? 0
    }

    /// Starts the listing over (after a `reset`), keeping the count of resets.
    mutating func startOver() {
        let resets = self.resets + 1
        self = DropboxListingCursor()
        self.resets = resets
    }

    var json: JSONValue {
        var members: [String: JSONValue] = [
            "listed": .int(listed), "files": .int(files), "skipped_unsafe": .int(skippedUnsafe),
            "skipped_not_image": .int(skippedNotImage), "pages": .int(pages), "resets": .int(resets), "complete": .bool(complete),
        ]
        if let cursor { members["cursor"] = .string(cursor) }
        return .object(members)
    }

    /// The job's result details.
    var result: JSONValue {
        .object([
            "entries": .int(listed), "files": .int(files), "skipped_unsafe": .int(skippedUnsafe),
            "skipped_not_image": .int(skippedNotImage), "pages": .int(pages), "resets": .int(resets),
        ])
    }
}
