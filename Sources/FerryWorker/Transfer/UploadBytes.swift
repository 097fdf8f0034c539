import AsyncHTTPClient
import NIOCore

/// Where an upload's bytes come from: a local file (an upload) or another provider's file (a copy), read a
/// chunk at a time either way.
enum UploadBytes: Sendable {
    case file(OwnedFile)
    case copy(any CopySource)

    /// The bytes `start..<end` as a request body; a copy's are read first (a chunk at most), a file's streamed.
    func body(_ start: Int64, _ end: Int64, pieceSize: Int, context: JobContext) async throws -> HTTPClientRequest.Body {
        switch self {
        case .file(let file):
            let stream = FileByteStream(file: file, start: start, end: end, pieceSize: pieceSize, bandwidth: context.bandwidth) { at, buffer in
                context.noteBytes(at + Int64(buffer.readableBytes))
            }
            return .stream(stream, length: .known(end - start))
        case .copy(let source):
            let buffer = try await source.read(start..<end, context: context)
            context.noteBytes(end)
            return .bytes(buffer)
        }
    }
}
