import FerryCore

/// The resumable state of a Drive folder listing, recorded as the progress session with each page's children: the
/// page token after the last page whose children are queued, and the counts so far.
struct GoogleDriveListingCursor: Sendable, Equatable {
    var pageToken: String?
    var complete = false
    var pages: Int64 = 0
    /// Items seen (files, folders, Google Docs items).
    var listed: Int64 = 0
    var files: Int64 = 0
    var folders: Int64 = 0
    var skippedUnsafe: Int64 = 0
    /// Google Docs items skipped for want of an export format (or one their type has).
    var skippedDocuments: Int64 = 0

    init() {}

    init?(session: String?) {
        guard let session, let json = try? JSONValue.parse(session), json["pages"] != nil else { return nil }
        pageToken = json["page_token"]?.stringValue
        complete = json["complete"] == .bool(true)
        pages = json["pages"]?.intValue ?? 0
        listed = json["listed"]?.intValue ?? 0
        files = json["files"]?.intValue ?? 0
        folders = json["folders"]?.intValue ?? 0
        skippedUnsafe = json["skipped_unsafe"]?.intValue ?? 0
        skippedDocuments = json["skipped_google_docs"]?.intValue ?? 0
    }

    var json: JSONValue {
        var members = counts
        members["complete"] = .bool(complete)
        if let pageToken { members["page_token"] = .string(pageToken) }
        return .object(members)
    }

    /// The job's result details.
    var result: JSONValue { .object(counts) }

    private var counts: [String: JSONValue] {
        [
            "pages": .int(pages), "listed": .int(listed), "files": .int(files), "folders": .int(folders),
            "skipped_unsafe": .int(skippedUnsafe), "skipped_google_docs": .int(skippedDocuments),
        ]
    }
}
