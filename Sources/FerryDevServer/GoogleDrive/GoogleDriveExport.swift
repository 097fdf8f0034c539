/// Exports of Google Docs, Sheets and Slides items: the formats Drive offers for each, and stand-in content (the
/// dev server has no documents to render, so an export is a short text naming the item and the format).
enum GoogleDriveExport {
    static let formats: [String: Set<String>] = [
        "application/vnd.google-apps.document": [
            "text/plain", "text/html", "application/pdf", "application/rtf", "application/vnd.oasis.opendocument.text",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/epub+zip", "text/markdown",
        ],
        "application/vnd.google-apps.spreadsheet": [
            "text/csv", "text/tab-separated-values", "application/pdf", "application/vnd.oasis.opendocument.spreadsheet",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        ],
        "application/vnd.google-apps.presentation": [
            "text/plain", "application/pdf", "application/vnd.oasis.opendocument.presentation",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ],
    ]

    /// The export of `item` as `mimeType`, or Drive's errors: 403 for a binary file or folder, 400 for a format the
    /// item's type has no export to.
    static func render(_ item: GoogleDriveItem, as mimeType: String) throws(GoogleAPIError) -> [UInt8] {
        guard item.isGoogleDocument, let offered = formats[item.mimeType] else {
            throw .drive(.forbidden, reason: "fileNotExportable", "Export only supports Docs Editors files.")
        }
        guard offered.contains(mimeType) else {
            throw .badRequest("The requested conversion is not supported.", reason: "badRequest")
        }
        return Array("Ferry dev server export of \"\(item.name)\" (\(item.id)) as \(mimeType)\n".utf8)
    }
}
