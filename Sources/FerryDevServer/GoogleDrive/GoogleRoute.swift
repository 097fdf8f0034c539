/// The Google routes the dev server speaks, on Google's own paths under its one base URL: Drive v3
/// (`/drive/v3/files…`, `/upload/drive/v3/files…`), the OAuth token endpoint (`/token`) and the installed-app
/// authorize page (`/o/oauth2/auth`, `/o/oauth2/v2/auth`).
enum GoogleRoute: Equatable, Sendable {
    /// `GET /drive/v3/files` (list) and `POST` (create without content).
    case files
    /// `/drive/v3/files/ID`: get (`alt=media` downloads), patch, delete.
    case file(String)
    /// `POST /drive/v3/files/ID/copy`.
    case copy(String)
    /// `GET /drive/v3/files/ID/export`.
    case export(String)
    /// `/upload/drive/v3/files[/ID]`: uploads (`uploadType=media|multipart|resumable`) and resumable session PUTs.
    case upload(String?)
    case token
    case authorize

    init?(path: String) {
        if path == "/token" {
            self = .token
        } else if path == "/o/oauth2/auth" || path == "/o/oauth2/v2/auth" {
            self = .authorize
        } else if let rest = Self.rest(of: path, under: "/drive/v3/files") {
            guard let rest else {
                self = .files
                return
            }
            let parts = rest.split(separator: "/", omittingEmptySubsequences: false)
            guard let id = parts.first.flatMap({ String($0).removingPercentEncoding }), !id.isEmpty, parts.count <= 2 else { return nil }
            switch parts.count == 2 ? String(parts[1]) : nil {
            case nil: self = .file(id)
            case "copy": self = .copy(id)
            case "export": self = .export(id)
            default: return nil
            }
        } else if let rest = Self.rest(of: path, under: "/upload/drive/v3/files") {
            guard let rest else {
                self = .upload(nil)
                return
            }
            guard !rest.contains("/"), let id = rest.removingPercentEncoding, !id.isEmpty else { return nil }
            self = .upload(id)
        } else {
            return nil
        }
    }

    /// `.some(nil)` for the prefix itself, `.some(rest)` for `prefix/rest`, `nil` otherwise.
    private static func rest(of path: String, under prefix: String) -> String?? {
        if path == prefix || path == prefix + "/" { return .some(nil) }
        guard path.hasPrefix(prefix + "/") else { return nil }
        return .some(String(path.dropFirst(prefix.count + 1)))
    }

    /// Name in `requests_per_route` and in ``FaultConfiguration/routes``.
    var name: String {
        switch self {
        case .files: "drive/files"
        case .file: "drive/file"
        case .copy: "drive/files.copy"
        case .export: "drive/files.export"
        case .upload: "drive/upload"
        case .token: "google/token"
        case .authorize: "google/authorize"
        }
    }

    /// The token and authorize endpoints see faults only with ``FaultConfiguration/includeOAuth``.
    var isOAuth: Bool { self == .token || self == .authorize }
}
