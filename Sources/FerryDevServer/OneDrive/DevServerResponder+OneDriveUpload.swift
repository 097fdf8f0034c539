import FerryCore
import Foundation
import Hummingbird

/// Simple uploads (`PUT …:/content`, up to 4 MiB) and upload sessions: `createUploadSession` answers the session
/// URL (`/onedrive-up/{id}`), its expiry and `nextExpectedRanges`; `PUT` of a range (`Content-Range`, other than the
/// last a multiple of 320 KiB) answers 202 with `nextExpectedRanges`, the last 201 (or 200 when it replaced a file)
/// with the item; `GET` tells what the session still expects; `DELETE` cancels it; an expired session is 404.
extension DevServerResponder {
    static let oneDriveSimpleLimit = 4 * 1024 * 1024
    static let oneDriveGranularity: Int64 = 320 * 1024
    static let oneDriveMaxRange = 60 * 1024 * 1024

    func oneDriveSimpleUpload(_ account: String, names: [String], request: Request, store: OneDriveStore) async throws -> Response {
        let conflict = FormDecoding.decode(request.uri.query ?? "")["@microsoft.graph.conflictBehavior"] ?? "replace"
        guard ["replace", "fail", "rename"].contains(conflict) else { throw OneDriveGraphError.bad("Unknown conflictBehavior.") }
        let bytes = try await oneDriveBody(request, limit: Self.oneDriveSimpleLimit, store: store)
        let (item, created) = try store.write(account, path: names, bytes: bytes, conflict: conflict, clientModified: nil)
        store.record { $0.simpleUploads += 1 }
        return .json(item.json(parentPath: store.parentPath(account, item)), status: created ? .created : .ok)
    }

    func oneDriveCreateSession(_ account: String, names: [String], request: Request, origin: String, store: OneDriveStore) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 64 * 1024)
        let json = (try? JSONValue.parse(utf8: Array(body.readableBytesView))) ?? .object([:])
        let conflict = json["item"]?["@microsoft.graph.conflictBehavior"]?.stringValue ?? "replace"
        guard ["replace", "fail", "rename"].contains(conflict) else { throw OneDriveGraphError.bad("Unknown conflictBehavior.") }
        if conflict == "fail", let existing = store.item(account, path: names), !existing.isFolder {
            throw OneDriveGraphError(status: .conflict, code: "nameAlreadyExists", message: "The specified item name already exists.")
        }
        let modified = json["item"]?["fileSystemInfo"]?["lastModifiedDateTime"]?.stringValue
        let session = store.createSession(account: account, path: names, conflict: conflict, clientModified: modified)
        return .json(.object([
            "uploadUrl": .string(Self.oneDriveUploadOrigin(origin) + "/onedrive-up/" + session.id), "expirationDateTime": .string(OneDriveDevTime.format(session.expiresAt)),
            "nextExpectedRanges": .array([.string("0-")]),
        ]))
    }

    func oneDriveSession(_ request: Request, id: String, store: OneDriveStore) async throws -> Response {
        // The URL is the credential: Graph refuses an Authorization header here.
        if request.headers[.authorization] != nil {
            throw OneDriveGraphError(status: .unauthorized, code: "unauthenticated", message: "Do not send an Authorization header to the upload URL.")
        }
        switch request.method {
        case .get:
            store.record { $0.statusQueries += 1 }
            guard let session = store.session(id) else { throw OneDriveGraphError.notFound("upload session") }
            return .json(Self.oneDriveSessionJSON(session, next: Int64(session.received.count)))
        case .delete:
            guard store.cancelSession(id) else { throw OneDriveGraphError.notFound("upload session") }
            return Response(status: .noContent)
        case .put:
            return try await oneDriveRange(request, id: id, store: store)
        default:
            throw OneDriveGraphError(status: .methodNotAllowed, code: "invalidRequest", message: "Use PUT, GET or DELETE.")
        }
    }

    private func oneDriveRange(_ request: Request, id: String, store: OneDriveStore) async throws -> Response {
        guard let header = request.headers[.contentRange], let range = Self.oneDriveContentRange(header) else {
            throw OneDriveGraphError.bad("Content-Range is missing or malformed.", code: "invalidRange")
        }
        let length = range.end - range.start + 1
        guard length <= Self.oneDriveMaxRange else { throw OneDriveGraphError.bad("A fragment holds at most 60 MiB.", code: "invalidRange") }
        if range.end + 1 < range.total, length % Self.oneDriveGranularity != 0 {
            throw OneDriveGraphError.bad("Fragments other than the last must be multiples of 320 KiB.", code: "invalidRange")
        }
        guard store.session(id) != nil else { throw OneDriveGraphError.notFound("upload session") }
        let bytes = try await oneDriveBody(request, limit: Int(length), store: store)
        guard Int64(bytes.count) == length else { throw OneDriveGraphError.bad("The body is shorter than its Content-Range.", code: "invalidRange") }
        switch try store.receive(id, start: range.start, total: range.total, bytes: bytes) {
        case .incomplete(let next):
            guard let session = store.session(id) else { throw OneDriveGraphError.notFound("upload session") }
            return .json(Self.oneDriveSessionJSON(session, next: next), status: .accepted)
        case .complete(let item, let created):
            let account = store.state.withLock { state in state.drives.first { $0.value.items[item.id] != nil }?.key } ?? ""
            return .json(item.json(parentPath: store.parentPath(account, item)), status: created ? .created : .ok)
        }
    }

    /// Where session URLs point: over TLS, a client that reached the server as `127.0.0.1` is sent to `localhost`, another
    /// host as Microsoft's upload hosts are (an SDK then sends no access token there); over plain http the same origin.
    static func oneDriveUploadOrigin(_ origin: String) -> String {
        origin.hasPrefix("https://127.0.0.1:") ? "https://localhost:" + origin.dropFirst("https://127.0.0.1:".count) : origin
    }

    static func oneDriveSessionJSON(_ session: OneDriveDevSession, next: Int64) -> JSONValue {
        .object(["expirationDateTime": .string(OneDriveDevTime.format(session.expiresAt)), "nextExpectedRanges": .array([.string("\(next)-")])])
    }

    /// `bytes S-E/T` (all known).
    static func oneDriveContentRange(_ header: String) -> (start: Int64, end: Int64, total: Int64)? {
        guard header.hasPrefix("bytes ") else { return nil }
        let spec = header.dropFirst("bytes ".count)
        guard let dash = spec.firstIndex(of: "-"), let slash = spec.firstIndex(of: "/"), dash < slash,
            let start = Int64(spec[..<dash]), let end = Int64(spec[spec.index(after: dash)..<slash]), let total = Int64(spec[spec.index(after: slash)...]),
            start >= 0, end >= start, end < total
        else { return nil }
        return (start, end, total)
    }
}
