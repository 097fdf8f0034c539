/// A `--local-root` that cannot be used.
public struct LocalRootsError: Error, Sendable, CustomStringConvertible {
    public let directory: String
    public let problem: String
    public let fix: String

    public var description: String {
        directory.isEmpty ? "\(problem): \(fix)" : "--local-root \(directory) \(problem): \(fix)"
    }
}
