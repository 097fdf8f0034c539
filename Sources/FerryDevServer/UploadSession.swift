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
    /// `session_type: concurrent`: appends at any multiple of 4 MiB, in any order and in parallel. ``offset`` stays 0
    /// and ``hasher`` empty until the session is closed and every byte up to its end has arrived; then ``offset`` is
    /// the size and ``finalHash`` the content hash of the assembled file.
    var concurrent = false
    /// Concurrent sessions: byte ranges received (start → length).
    var ranges: [Int64: Int64] = [:]
    /// Concurrent sessions: the end of the data, set by the append that closed the session.
    var end: Int64?
    /// Concurrent sessions: the content hash of the whole file once complete.
    var finalHash: String?

    /// Concurrent sessions: closed and every byte from 0 to its end received.
    var isComplete: Bool {
        guard let end else { return false }
        var covered: Int64 = 0
        for (start, length) in ranges.sorted(by: { $0.key < $1.key }) {
            guard start <= covered else { return false }
            covered = max(covered, start + length)
        }
        return covered >= end
    }
}
