/// How ``JSONValue/jsonText(_:)`` writes strings; the empty set is ``JSONValue/jsonText``'s plain form.
public struct JSONTextOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Every non-ASCII character (and 0x7F) as `\uXXXX`, surrogate pairs above U+FFFF: JSON that is safe in an
    /// HTTP header (`Dropbox-API-Arg`, `Dropbox-API-Result`).
    public static let asciiOnly = JSONTextOptions(rawValue: 1 << 0)
    /// `/` as `\/`, as PHP-backed APIs (Flickr's) write it.
    public static let escapingSlashes = JSONTextOptions(rawValue: 1 << 1)
}
