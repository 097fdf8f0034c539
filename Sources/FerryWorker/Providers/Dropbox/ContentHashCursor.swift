import FerryDropbox
import NIOCore
import Synchronization

/// Dropbox's `content_hash` of a file, built from the pieces an upload reads, in file order, each byte once.
///
/// Pieces can be read more than once (a chunk sent again after a failure) or skipped (the server already had
/// them): only bytes at exactly the next position count, and `catchUp` reads any gap from disk, so the hash is
/// always that of the file, whatever path the upload took.
final class ContentHashCursor: Sendable {
    private let state = Mutex<(hasher: DropboxContentHasher, position: Int64)>((DropboxContentHasher(), 0))

    var position: Int64 { state.withLock { $0.position } }

    func observe(_ offset: Int64, _ buffer: ByteBuffer) {
        buffer.withUnsafeReadableBytes { observe(offset, $0) }
    }

    /// The same for bytes in memory that is not a `ByteBuffer` (a pooled buffer).
    func observe(_ offset: Int64, _ bytes: UnsafeRawBufferPointer) {
        state.withLock { state in
            let end = offset + Int64(bytes.count)
            guard offset <= state.position, end > state.position else { return }
            let skip = Int(state.position - offset)
            state.hasher.update(UnsafeRawBufferPointer(rebasing: bytes[skip...]))
            state.position = end
        }
    }

    /// Hashes the file from the current position up to `target` by reading it (no network), into one of the
    /// process's pooled buffers (nothing allocated per piece).
    func catchUp(to target: Int64, file: OwnedFile, pieceSize: Int) async throws {
        guard position < target else { return }
        try await BufferPool.shared.withBuffer { buffer in
            while position < target {
                let at = position
                let size = Int(min(Int64(min(pieceSize, buffer.bytes.count)), target - at))
                try await BlockingIO.run { [self] in
                    let piece = UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[..<size])
                    let count = try file.read(into: piece, at: at)
                    guard count == piece.count else {
                        throw JobFailure.permanent("source_changed", "\(file.path) became shorter during the upload; enqueue it again")
                    }
                    observe(at, UnsafeRawBufferPointer(piece))
                }
            }
        }
    }

    func finalize() -> String {
        state.withLock { $0.hasher.finalize() }
    }
}
