import FerryCore
/// Dropbox `Metadata` union: an entry of `list_folder` or the result of `get_metadata`.
public enum DropboxEntry: Sendable, Hashable {
    case file(DropboxFileMetadata)
    case folder(pathLower: String, pathDisplay: String, id: String?)
    /// Only in `list_folder` change feeds: something was removed here.
    case deleted(pathLower: String, pathDisplay: String)

    /// Parses a tagged `Metadata` object; `nil` for unknown tags or missing fields.
    public init?(json: JSONValue) {
        switch json[".tag"]?.stringValue {
        case "file":
            guard let file = DropboxFileMetadata(json: json) else { return nil }
            self = .file(file)
        case "folder":
            self = .folder(
                pathLower: json["path_lower"]?.stringValue ?? "", pathDisplay: json["path_display"]?.stringValue ?? "",
                id: json["id"]?.stringValue)
        case "deleted":
            self = .deleted(pathLower: json["path_lower"]?.stringValue ?? "", pathDisplay: json["path_display"]?.stringValue ?? "")
        default:
            return nil
        }
    }

    /// `path_lower` of any kind of entry.
    public var pathLower: String {
        switch self {
        case .file(let file): file.pathLower
        case .folder(let pathLower, _, _), .deleted(let pathLower, _): pathLower
        }
    }

    /// `path_display` of any kind of entry.
    public var pathDisplay: String {
        switch self {
        case .file(let file): file.pathDisplay
        case .folder(_, let pathDisplay, _), .deleted(_, let pathDisplay): pathDisplay
        }
    }
}
