/// Why a listing or a read through a ``RemoteLister`` stopped, on our side of the seam (the provider's own failures
/// come as ``JobFailure``). The description names no secret, only paths the user gave and counts.
public struct RemoteListingError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// More entries than ``RemoteListOptions/maxEntries``.
        case tooManyEntries = "too_many_entries"
        /// An entry deeper than ``RemoteListOptions/maxDepth``.
        case tooDeep = "too_deep"
        /// The remote names no provider that lists, or one this process cannot open (no secret key).
        case notListable = "not_listable"
        /// The remote is not a folder there.
        case notFound = "not_found"
        /// The provider cannot read a file's bytes here.
        case notReadable = "not_readable"
    }

    public var code: Code
    public var message: String
    /// What to do about it.
    public var fix: String

    public init(_ code: Code, _ message: String, fix: String) {
        self.code = code
        self.message = message
        self.fix = fix
    }

    public var description: String { "\(message); \(fix)" }

    /// A folder deeper than ``RemoteListOptions/maxDepth`` (a walk would have to read it).
    static func tooDeep(_ options: RemoteListOptions) -> RemoteListingError {
        RemoteListingError(.tooDeep, "the folder has folders more than \(options.maxDepth) levels deep", fix: "list a subfolder, or raise --max-depth")
    }
}
