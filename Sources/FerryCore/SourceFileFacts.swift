/// What the producer saw of an upload source at enqueue time; the worker refuses a file that changed since.
public struct SourceFileFacts: Sendable, Hashable {
    public var size: Int64
    /// Modification time in nanoseconds since the epoch.
    public var modifiedNanoseconds: Int64
    /// Device and inode, to notice a file replaced under the same name.
    public var device: UInt64
    public var inode: UInt64

    public init(size: Int64, modifiedNanoseconds: Int64, device: UInt64, inode: UInt64) {
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.device = device
        self.inode = inode
    }

    /// The facts as they are kept in an upload's details (the worker checks the file against them).
    public var details: [String: JSONValue] {
        [
            "size": .int(size),
            "mtime_ns": .int(modifiedNanoseconds),
            "device": .int(Int64(bitPattern: device)),
            "inode": .int(Int64(bitPattern: inode)),
        ]
    }

    /// Why a path cannot be uploaded.
    public enum Problem: Error, Sendable, Hashable {
        case missing
        case notRegularFile(kind: String)
        case unreadable
        case permissionDenied
        /// A symlink that leads to itself (ELOOP).
        case symlinkLoop
    }
}
