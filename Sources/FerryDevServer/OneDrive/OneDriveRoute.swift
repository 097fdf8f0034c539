/// The Graph and identity platform routes the OneDrive emulation answers, on their own paths under the server's one
/// base URL: `/v1.0/me/drive/root[:/path:][/children|/content|/createUploadSession]`, `/v1.0/me/drive/items/{id}
/// [/children|/content]`, upload session URLs `/onedrive-up/{id}`, and `/{tenant}/oauth2/v2.0/token|authorize`.
enum OneDriveRoute: Equatable, Sendable {
    enum Target: Equatable, Sendable {
        case path([String])
        case id(String)
    }

    case item(Target)
    case children(Target)
    case content(Target)
    case createSession([String])
    case session(String)
    case token
    case authorize
    /// `GET /v1.0/me/drive` (or `/v1.0/drives/{id}`): the drive resource.
    case drive

    init?(path: String) {
        // `/v1.0/drives/{id}/…` (how the SDKs address items) is `/v1.0/me/drive/…` of the token's account; an item
        // segment may carry a percent-encoded `root:/path:` address.
        if path.hasPrefix("/v1.0/drives/") {
            let parts = path.dropFirst("/v1.0/drives/".count).split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
            guard !parts.isEmpty, !parts[0].isEmpty else { return nil }
            if parts.count == 1 {
                self = .drive
                return
            }
            var rest = parts.dropFirst().map(String.init)
            if rest.count >= 2, rest[0] == "items", let address = rest[1].removingPercentEncoding, address.hasPrefix("root:") {
                rest = [address + (rest.count > 2 ? "/" + rest[2...].joined(separator: "/") : "")]
            }
            self.init(path: "/v1.0/me/drive/" + rest.joined(separator: "/"))
            return
        }
        if path == "/v1.0/me/drive" {
            self = .drive
            return
        }
        if path.hasPrefix("/onedrive-up/") {
            let id = String(path.dropFirst("/onedrive-up/".count))
            guard !id.isEmpty, !id.contains("/") else { return nil }
            self = .session(id)
            return
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 5, parts[2] == "oauth2", parts[3] == "v2.0", !parts[1].isEmpty {
            switch parts[4] {
            case "token": self = .token
            case "authorize": self = .authorize
            default: return nil
            }
            return
        }
        let drive = "/v1.0/me/drive/"
        guard path.hasPrefix(drive) else { return nil }
        let rest = String(path.dropFirst(drive.count))
        if rest == "root" {
            self = .item(.path([]))
        } else if rest == "root/children" {
            self = .children(.path([]))
        } else if rest.hasPrefix("root:/") {
            // root:/a/b:  or  root:/a/b:/children|content|createUploadSession
            let address = rest.dropFirst("root:".count)
            guard let end = address.lastIndex(of: ":") else { return nil }
            let names = address[..<end].split(separator: "/").map { String($0).removingPercentEncoding ?? "" }
            guard !names.isEmpty, !names.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." || $0.contains(":") }) else { return nil }
            switch String(address[address.index(after: end)...]) {
            case "": self = .item(.path(names))
            case "/children": self = .children(.path(names))
            case "/content": self = .content(.path(names))
            case "/createUploadSession": self = .createSession(names)
            default: return nil
            }
        } else if rest.hasPrefix("items/") {
            let parts = rest.dropFirst("items/".count).split(separator: "/", omittingEmptySubsequences: false)
            guard let id = parts.first.flatMap({ String($0).removingPercentEncoding }), !id.isEmpty, parts.count <= 2 else { return nil }
            switch parts.count == 2 ? String(parts[1]) : nil {
            case nil: self = .item(.id(id))
            case "children": self = .children(.id(id))
            case "content": self = .content(.id(id))
            default: return nil
            }
        } else {
            return nil
        }
    }

    /// Name in `requests_per_route` and in ``FaultConfiguration/routes``.
    var name: String {
        switch self {
        case .item: "onedrive/item"
        case .children: "onedrive/children"
        case .content: "onedrive/content"
        case .createSession: "onedrive/createUploadSession"
        case .session: "onedrive/upload-session"
        case .token: "onedrive/token"
        case .authorize: "onedrive/authorize"
        case .drive: "onedrive/drive"
        }
    }

    var isOAuth: Bool { self == .token || self == .authorize }
}
