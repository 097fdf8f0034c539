import FerryCore

/// The metadata of a file to create (or of a new revision): its name, folder, type and modification time.
public struct GoogleDriveNewFile: Sendable, Hashable {
    public var name: String
    /// The folder's id (`root` for the top of the account); `nil` leaves it unchanged on an update.
    public var parentID: String?
    public var mimeType: String?
    /// RFC 3339; kept by Drive as the file's `modifiedTime`.
    public var modifiedTime: String?

    public init(name: String, parentID: String? = nil, mimeType: String? = nil, modifiedTime: String? = nil) {
        self.name = name
        self.parentID = parentID
        self.mimeType = mimeType
        self.modifiedTime = modifiedTime
    }

    /// The JSON of a create (with `parents`) or of an update (without: moving a file takes `addParents`).
    func json(forUpdate: Bool) -> JSONValue {
        var members: [String: JSONValue] = ["name": .string(name)]
        if !forUpdate, let parentID { members["parents"] = .array([.string(parentID)]) }
        if let mimeType { members["mimeType"] = .string(mimeType) }
        if let modifiedTime { members["modifiedTime"] = .string(modifiedTime) }
        return .object(members)
    }
}
