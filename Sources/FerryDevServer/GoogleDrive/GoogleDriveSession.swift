import Foundation

/// A resumable upload session: bytes received so far live in a file; the target is a new file (with its metadata)
/// or a new revision of an existing one.
struct GoogleDriveSession: Sendable {
    let id: String
    let account: String
    /// The file a PATCH session writes a new revision of; `nil` creates a file.
    let fileID: String?
    /// Metadata from the session's start request.
    let metadata: GoogleDriveMetadata
    let dataPath: String
    let createdAt: Double
    /// `X-Upload-Content-Length` when the client gave it; the final chunk's total otherwise.
    var total: Int64?
    var received: Int64 = 0
    /// A PUT is streaming into the session: a second one is refused so two writers never interleave bytes.
    var busy = false
    /// The file the completed upload stored (a PUT after completion answers it again).
    var completedItemID: String?
}
