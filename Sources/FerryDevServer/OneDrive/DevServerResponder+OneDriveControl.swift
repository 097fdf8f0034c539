import FerryCore
import Foundation
import Hummingbird

/// `/__dev/onedrive/` routes (not part of Graph, never subject to faults):
///
/// - `POST /__dev/onedrive/accounts {"account"}` makes the account (if new) and answers a new refresh token:
///   `{"account", "refresh_token", "root_id", "client_id"}`.
/// - `POST /__dev/onedrive/files {"account", "path", "size"?, "text"?}` stores a file (deterministic bytes of
///   `size`, or `text`), folders made on the way; answers the item.
/// - `POST /__dev/onedrive/items {"account"}` lists every item with its path (for checks).
/// - `POST /__dev/onedrive/expire-sessions {"account"?}` makes upload sessions expire now.
/// - `POST /__dev/onedrive/revoke {"refresh_token"}` revokes a refresh token (its next use is `invalid_grant`);
///   `{"account"}` revokes every refresh token of the account (a user removing the app's access).
/// - `POST /__dev/onedrive/throttle {"count", "status"?: 429|503, "retry_after"?}` throttles the next Graph calls.
/// - `POST /__dev/onedrive/settings {"page_size"?, "session_lifetime_s"?}`.
/// - `GET /__dev/onedrive/stats` answers ``OneDriveDevStats``.
extension DevServerResponder {
    func oneDriveControl(_ request: Request, path: String, store: OneDriveStore) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 8 * 1024 * 1024)
        let json = (try? JSONValue.parse(utf8: Array(body.readableBytesView))) ?? .object([:])
        func bad(_ message: String) -> Response { .json(.object(["error": .string(message)]), status: .badRequest) }
        let account = json["account"]?.stringValue.flatMap { !$0.isEmpty && $0.utf8.count <= 256 ? $0 : nil }
        switch (request.method, path) {
        case (.post, "/__dev/onedrive/accounts"):
            guard let account else { return bad("Expected {\"account\": \"name\"}.") }
            let root = store.ensureAccount(account)
            return .json(.object([
                "account": .string(account), "refresh_token": .string(store.issueRefreshToken(account: account)), "root_id": .string(root),
                "client_id": .string(backend.configuration.appKey),
            ]))
        case (.post, "/__dev/onedrive/files"):
            guard let account, let path = json["path"]?.stringValue, let bytes = Self.oneDriveSeedBytes(json) else {
                return bad("Expected {\"account\", \"path\", \"size\" or \"text\"}.")
            }
            let names = path.split(separator: "/").map(String.init)
            guard !names.isEmpty, !names.contains(where: { $0 == "." || $0 == ".." }) else { return bad("Invalid path.") }
            store.ensureAccount(account)
            // A refusal (a file where a folder should be) is answered in Graph's shape by the dispatch.
            let (item, _) = try store.write(account, path: names, bytes: bytes, conflict: "replace", clientModified: nil)
            return .json(item.json(parentPath: store.parentPath(account, item)))
        case (.post, "/__dev/onedrive/items"):
            guard let account else { return bad("Expected {\"account\": \"name\"}.") }
            return .json(.object(["items": .array(store.itemsWithPaths(account))]))
        case (.post, "/__dev/onedrive/expire-sessions"):
            return .json(.object(["expired": .int(Int64(store.expireSessions(account: account)))]))
        case (.post, "/__dev/onedrive/revoke"):
            if let token = json["refresh_token"]?.stringValue {
                store.revoke(refreshToken: token)
            } else if let account {
                store.revokeRefreshTokens(account: account)
            } else {
                return bad("Expected {\"refresh_token\"} or {\"account\"}.")
            }
            return .json(.object([:]))
        case (.post, "/__dev/onedrive/throttle"):
            guard let count = json["count"]?.intValue, (0...10_000).contains(count) else { return bad("Expected {\"count\"}.") }
            store.state.withLock { state in
                state.throttleNext = Int(count)
                state.throttleStatus = json["status"]?.intValue == 503 ? 503 : 429
                state.throttleRetryAfter = Int(max(0, min(3600, json["retry_after"]?.intValue ?? 1)))
            }
            return .json(.object([:]))
        case (.post, "/__dev/onedrive/settings"):
            store.state.withLock { state in
                if let size = json["page_size"]?.intValue { state.defaultPageSize = Int(max(1, min(1000, size))) }
                if let lifetime = json["session_lifetime_s"]?.numberValue { state.sessionLifetime = max(0, lifetime) }
            }
            return .json(.object([:]))
        case (.get, "/__dev/onedrive/stats"):
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            let stats = store.state.withLock { $0.stats }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(stats))))
        default:
            return .json(.object(["error": .string("Unknown dev-server route \(request.method.rawValue) \(path)")]), status: .notFound)
        }
    }

    /// `text`, or `size` deterministic bytes (at most 64 MiB).
    static func oneDriveSeedBytes(_ json: JSONValue) -> [UInt8]? {
        if let text = json["text"]?.stringValue { return Array(text.utf8) }
        guard let size = json["size"]?.intValue, (0...(64 * 1024 * 1024)).contains(size) else { return nil }
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(size)
        return (0..<Int(size)).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state >> 24)
        }
    }
}
