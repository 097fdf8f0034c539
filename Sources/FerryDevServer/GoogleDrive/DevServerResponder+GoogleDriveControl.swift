import FerryCore
import Foundation
import Hummingbird

/// `/__dev/gdrive/` routes (not part of Google's API, never subject to faults):
///
/// - `POST /__dev/gdrive/accounts {"account": NAME}` makes the account (if new) and answers a new refresh token:
///   `{"account", "refresh_token", "root_id", "client_id"}` (the client secret is the server's app secret).
/// - `POST /__dev/gdrive/items {"account": NAME}` lists every item of the account with its path (for checks).
/// - `POST /__dev/gdrive/expire-sessions {"account"?: NAME}` makes resumable sessions expire now.
/// - `POST /__dev/gdrive/revoke {"refresh_token": T}` revokes a refresh token (its next use is `invalid_grant`).
/// - `GET /__dev/gdrive/stats` answers ``GoogleDriveStats``.
extension DevServerResponder {
    func googleDriveControl(_ method: HTTPRequest.Method, path: String, json: JSONValue) throws -> Response? {
        func account() throws -> String {
            guard let name = json["account"]?.stringValue, !name.isEmpty, name.utf8.count <= 256 else {
                throw DropboxError.text(.badRequest, "Expected {\"account\": \"name\"}.")
            }
            return name
        }
        switch (method, path) {
        case (.post, "/__dev/gdrive/accounts"):
            let name = try account()
            let root = backend.gdrive.ensureAccount(name)
            return .json(.object([
                "account": .string(name), "refresh_token": .string(backend.gdrive.issueRefreshToken(account: name)),
                "root_id": .string(root), "client_id": .string(backend.configuration.appKey),
            ]))
        case (.post, "/__dev/gdrive/items"):
            return .json(.object(["items": .array(googleItemsWithPaths(try account()))]))
        case (.post, "/__dev/gdrive/expire-sessions"):
            let expired = backend.gdrive.expireSessions(account: json["account"]?.stringValue)
            return .json(.object(["expired": .int(Int64(expired))]))
        case (.post, "/__dev/gdrive/revoke"):
            guard let token = json["refresh_token"]?.stringValue else { throw DropboxError.text(.badRequest, "Expected {\"refresh_token\": \"…\"}.") }
            backend.gdrive.revoke(refreshToken: token)
            return .json(.object([:]))
        case (.get, "/__dev/gdrive/stats"):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(backend.gdrive.stats()))))
        default:
            return nil
        }
    }

    /// Every item with `path` (`/Backup/2025/a.jpg`, from the root down; same-name siblings share a path).
    func googleItemsWithPaths(_ account: String) -> [JSONValue] {
        let items = backend.gdrive.items(of: account)
        let byID = Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return items.filter { !$0.parents.isEmpty }.map { item in
            var names: [String] = []
            var current: GoogleDriveItem? = item
            while let step = current, !step.parents.isEmpty, names.count < 256 {
                names.append(step.name)
                current = byID[step.parents[0]]
            }
            guard case .object(var members) = item.json else { return item.json }
            members["path"] = .string("/" + names.reversed().joined(separator: "/"))
            return .object(members)
        }
    }
}
