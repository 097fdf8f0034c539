/// Typed readers, and the two helpers for Dropbox's Stone unions that both the Dropbox client and the dev server use.
extension JSONValue {
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let values) = self { return values }
        return nil
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// Integers and doubles alike, as `Double`.
    public var numberValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The tag of a Stone union value: an object's `.tag`, or a bare string (the short form of a void member).
    public var unionTag: String? {
        if case .string(let tag) = self { return tag }
        return self[".tag"]?.stringValue
    }

    /// A void union member, `{".tag": name}`.
    public static func tag(_ name: String) -> JSONValue {
        .object([".tag": .string(name)])
    }
}
