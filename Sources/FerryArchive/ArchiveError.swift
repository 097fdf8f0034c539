/// Errors of archive files, with stable codes and a description safe to show and log.
public struct ArchiveError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Creating, writing, syncing or renaming a file failed.
        case io
        /// A file is not an archive, is truncated, or does not match its checksum.
        case corrupt
        /// A committed archive's file is gone.
        case missing
        /// A bad argument (duration, directory).
        case usage
    }

    public var code: Code
    public var message: String
    public var fix: String?

    public init(_ code: Code, _ message: String, fix: String? = nil) {
        self.code = code
        self.message = message
        self.fix = fix
    }

    public var description: String { fix.map { "\(message); \($0)" } ?? message }
}
