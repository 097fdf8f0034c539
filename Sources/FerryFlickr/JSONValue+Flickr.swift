import FerryCore

extension JSONValue {
    /// A number Flickr may send as a JSON number or as a string of digits.
    var flickrInt: Int64? {
        switch self {
        case .string(let text): Int64(text)
        default: intValue
        }
    }

    /// Text Flickr may send as a string or (ids, servers) as a number; `{"_content": …}` is unwrapped.
    var flickrText: String? {
        switch self {
        case .string(let text): text
        case .int(let value): String(value)
        case .object: self["_content"]?.stringValue
        default: nil
        }
    }
}
