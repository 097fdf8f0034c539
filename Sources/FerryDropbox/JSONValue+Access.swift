import FerryCore
/// Small readers FerryCore's `JSONValue` does not offer (kept internal to avoid clashing with it).
extension JSONValue {
    var boolMember: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var arrayMember: [JSONValue]? {
        if case .array(let values) = self { return values }
        return nil
    }

    /// Integers and doubles alike, as `Double`.
    var numberValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The `.tag` of a union value (or a bare string, the short form of a void member).
    var unionTagValue: String? {
        if case .string(let tag) = self { return tag }
        return self[".tag"]?.stringValue
    }
}
