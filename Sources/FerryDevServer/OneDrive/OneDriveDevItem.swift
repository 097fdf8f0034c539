import Crypto
import FerryCore

/// One emulated driveItem: a folder or a file with its bytes in memory.
struct OneDriveDevItem: Sendable {
    var id: String
    var name: String
    var parentID: String?
    var isFolder: Bool
    var content: [UInt8] = []
    var quickXor = ""
    var sha256 = ""
    /// Bumped with every new content (the `cTag`) and every change (the `eTag`).
    var contentVersion = 1
    var version = 1
    var created: String
    var modified: String
    /// The client's modification time (`fileSystemInfo.lastModifiedDateTime`), when it gave one.
    var clientModified: String?

    mutating func store(_ bytes: [UInt8], at time: String, clientModified: String?) {
        content = bytes
        quickXor = OneDriveDevHash.hash(bytes)
        sha256 = SHA256.hash(data: bytes).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined().uppercased()
        contentVersion += 1
        version += 1
        modified = time
        self.clientModified = clientModified ?? time
    }

    /// The driveItem as Graph answers it; `parentPath` is `/drive/root:` or `/drive/root:/a/b`.
    func json(parentPath: String?) -> JSONValue {
        var members: [String: JSONValue] = [
            "id": .string(id), "name": .string(name), "eTag": .string("\"{\(id)},\(version)\""),
            "createdDateTime": .string(created), "lastModifiedDateTime": .string(modified),
            "fileSystemInfo": .object(["createdDateTime": .string(created), "lastModifiedDateTime": .string(clientModified ?? modified)]),
        ]
        if let parentID, let parentPath {
            members["parentReference"] = .object(["id": .string(parentID), "driveId": .string("emulated"), "path": .string(parentPath)])
        }
        if parentID == nil { members["root"] = .object([:]) }
        if isFolder {
            members["folder"] = .object(["childCount": .int(0)])
            members["size"] = .int(0)
        } else {
            members["cTag"] = .string("\"c:{\(id)},\(contentVersion)\"")
            members["size"] = .int(Int64(content.count))
            members["file"] = .object([
                "mimeType": .string("application/octet-stream"),
                "hashes": .object(["quickXorHash": .string(quickXor), "sha256Hash": .string(sha256)]),
            ])
        }
        return .object(members)
    }
}

/// An upload session: where its file goes and the bytes received so far (in order, from byte 0).
struct OneDriveDevSession: Sendable {
    var id: String
    var account: String
    var path: [String]
    var conflict: String
    var clientModified: String?
    var total: Int64?
    var received: [UInt8] = []
    var expiresAt: Double
}
