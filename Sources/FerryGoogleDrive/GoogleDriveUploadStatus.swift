/// Where a resumable upload stands after a chunk or a status query.
public enum GoogleDriveUploadStatus: Sendable, Equatable {
    /// `308 Resume Incomplete`: Drive holds this many bytes (from 0); the next chunk starts there.
    case incomplete(received: Int64)
    /// Every byte arrived and the file is stored.
    case complete(GoogleDriveFile)
}
