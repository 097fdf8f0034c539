/// The formats Google Docs, Sheets and Slides items are exported to (the `export` option of fetches): they have no
/// bytes of their own.
public enum GoogleDriveExportFormat: String, Codable, Sendable, CaseIterable {
    case pdf, docx, odt, rtf, txt, html, epub, md, xlsx, ods, csv, tsv, pptx, odp

    /// The export MIME type of this format for an item of `googleType`; `nil` when Drive offers none.
    public func mimeType(for googleType: String) -> String? {
        let offered: [GoogleDriveExportFormat: String]
        switch googleType {
        case "application/vnd.google-apps.document":
            offered = [
                .pdf: "application/pdf", .docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                .odt: "application/vnd.oasis.opendocument.text", .rtf: "application/rtf", .txt: "text/plain", .html: "text/html",
                .epub: "application/epub+zip", .md: "text/markdown",
            ]
        case "application/vnd.google-apps.spreadsheet":
            offered = [
                .pdf: "application/pdf", .xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
                .ods: "application/vnd.oasis.opendocument.spreadsheet", .csv: "text/csv", .tsv: "text/tab-separated-values",
            ]
        case "application/vnd.google-apps.presentation":
            offered = [
                .pdf: "application/pdf", .pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
                .odp: "application/vnd.oasis.opendocument.presentation", .txt: "text/plain",
            ]
        default:
            offered = [:]
        }
        return offered[self]
    }

    /// The formats an item of `googleType` can be exported to, for messages.
    public static func offered(for googleType: String) -> [GoogleDriveExportFormat] {
        allCases.filter { $0.mimeType(for: googleType) != nil }
    }

    /// The local name of an export: the item's name with the format's extension (unless it has it already).
    public func fileName(for name: String) -> String {
        name.lowercased().hasSuffix("." + rawValue) ? name : name + "." + rawValue
    }
}
