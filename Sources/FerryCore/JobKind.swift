/// What a job moves.
public enum JobKind: String, Sendable, CaseIterable, Codable {
    /// A local file to a remote destination (cloud storage or a local directory).
    case upload
    /// A remote file, folder or photostream to local storage.
    case fetch
    /// A remote file or folder to another provider, streamed through a worker (no local copy).
    case copy
}
