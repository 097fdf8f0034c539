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
        state.withLock { state in
            let end = offset + Int64(buffer.readableBytes)
            guard offset <= state.position, end > state.position else { return }
            let skip = Int(state.position - offset)
            if let tail = buffer.getSlice(at: buffer.readerIndex + skip, length: buffer.readableBytes - skip) {
                state.hasher.update(tail)
                state.position = end
            }
        }
    }

    /// Hashes the file from the current position up to `target` by reading it (no network).
    func catchUp(to target: Int64, file: OwnedFile, pieceSize: Int) async throws {
        while position < target {
            let at = position
            let count = Int(min(Int64(pieceSize), target - at))
            let buffer = try await BlockingIO.run { try file.readBuffer(at: at, count: count) }
            guard buffer.readableBytes == count else {
                throw JobFailure.permanent("source_changed", "\(file.path) became shorter during the upload; enqueue it again")
            }
            observe(at, buffer)
        }
    }

    func finalize() -> String {
        state.withLock { $0.hasher.finalize() }
    }
}
