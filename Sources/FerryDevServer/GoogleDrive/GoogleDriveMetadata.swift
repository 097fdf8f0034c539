import FerryCore
import Foundation

/// The metadata a create, update or copy request carries (the JSON body or the multipart's first part), checked.
struct GoogleDriveMetadata: Sendable, Equatable {
    var name: String?
    var mimeType: String?
    var parents: [String]?
    var modifiedTime: Date?
    var trashed: Bool?

    /// Longest name taken (Drive allows about 32 KB; a dev server needs no more than this).
    static let maxNameBytes = 4096

    init(name: String? = nil, mimeType: String? = nil, parents: [String]? = nil, modifiedTime: Date? = nil, trashed: Bool? = nil) {
        self.name = name
        self.mimeType = mimeType
        self.parents = parents
        self.modifiedTime = modifiedTime
        self.trashed = trashed
    }

    /// Parses a request's metadata; unknown fields are ignored, as Drive ignores read-only ones.
    init(json: JSONValue) throws(GoogleAPIError) {
        guard case .object(let members) = json else { throw .badRequest("The metadata must be a JSON object.") }
        if let value = members["name"], !value.isNull {
            guard let name = value.stringValue, name.utf8.count <= Self.maxNameBytes else {
                throw .badRequest("Invalid value for name.", reason: "invalid")
            }
            self.name = name
        }
        if let value = members["mimeType"], !value.isNull {
            guard let type = value.stringValue, type.utf8.count <= 255 else { throw .badRequest("Invalid value for mimeType.", reason: "invalid") }
            mimeType = type
        }
        if let value = members["parents"], !value.isNull {
            guard let list = value.arrayValue, list.count <= 1, let ids = Optional(list.compactMap(\.stringValue)), ids.count == list.count else {
                throw .badRequest("A file takes exactly one parent.", reason: "invalid")
            }
            parents = ids
        }
        if let value = members["modifiedTime"], !value.isNull {
            guard let text = value.stringValue, let date = GoogleTime.parse(text) else {
                throw .badRequest("Invalid value for modifiedTime.", reason: "invalid")
            }
            modifiedTime = date
        }
        if let value = members["trashed"], !value.isNull {
            guard let flag = value.boolValue else { throw .badRequest("Invalid value for trashed.", reason: "invalid") }
            trashed = flag
        }
    }

    /// Parses a JSON body (empty means no metadata).
    init(body: [UInt8]) throws(GoogleAPIError) {
        guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
            self.init()
            return
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(utf8: body)
        } catch {
            throw .badRequest("Invalid JSON payload received.", reason: "parseError")
        }
        try self.init(json: json)
    }
}
