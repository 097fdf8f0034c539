import Foundation

/// State of one `upload_session`: data received so far lives in a file under
/// `.devserver/sessions`, and the content hash is kept incrementally because appends are
/// strictly sequential (each must start at the current offset).
struct UploadSession: Sendable {
    let id: String
    let account: String
    let filePath: String
    let createdAt: Date
    var offset: Int64 = 0
    var closed = false
    /// Committed by finish; the data file is gone.
    var finished = false
    /// A request is currently streaming into the session; a concurrent one is refused so two
    /// writers never interleave bytes.
    var busy = false
    var hasher = ContentHasher()
}
