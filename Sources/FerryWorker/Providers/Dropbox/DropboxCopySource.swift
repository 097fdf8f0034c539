import FerryCore
import FerryDropbox
import FerryProviders
import FerryStore
import NIOCore

/// A Dropbox file a copy reads: ranged `files/download`s of `rev:REV`, the revision the attempt began with.
struct DropboxCopySource: CopySource {
    let caller: DropboxCaller
    /// The file's path, for messages.
    let path: String
    let facts: CopySourceFacts

    /// Looks the file up (`get_metadata`): a missing file fails the job for good, and so does a folder written
    /// without its trailing / (the destination was named for a file).
    static func open(_ location: DropboxLocation, caller: DropboxCaller) async throws -> DropboxCopySource {
        let entry: DropboxEntry
        do {
            entry = try await caller.call("looking up \(location.path)") { client, token in
                try await client.getMetadata(path: location.path, accessToken: token)
            }
        } catch let error as DropboxError {
            throw error.jobFailure(doing: "looking up \(location.path)")
        }
        switch entry {
        case .file(let metadata):
            return DropboxCopySource(
                caller: caller, path: metadata.pathDisplay,
                facts: CopySourceFacts(
                    size: metadata.size, version: metadata.rev, modified: RemoteTimestamp.iso8601(metadata.clientModified),
                    digest: metadata.contentHash.map { ContentDigest(kind: .dropbox, value: $0) }))
        case .folder:
            throw JobFailure.permanent(
                "source_is_folder", "\(location.path) is a folder: enqueue the copy with \(location.text)/ (or --recursive) to copy the folder")
        case .deleted:
            throw JobFailure.permanent("source_not_found", "\(location.path) was deleted")
        }
    }

    func read(_ range: Range<Int64>, context: JobContext) async throws -> ByteBuffer {
        guard !range.isEmpty else { return ByteBuffer() }
        let download: DropboxDownload
        do {
            download = try await caller.call("reading \(path)") { [rev = facts.version] client, token in
                try await client.download(path: "rev:" + rev, rangeStart: range.lowerBound, rangeEnd: range.upperBound - 1, accessToken: token)
            }
        } catch let error as DropboxError {
            if error.code == .pathError {
                throw JobFailure.retryable("source_changed", "\(path) changed or went away during the copy; the next attempt copies its current version")
            }
            throw error.jobFailure(doing: "reading \(path)")
        }
        guard download.status == 206 || (download.status == 200 && range.lowerBound == 0 && range.count == facts.size) else {
            throw JobFailure.retryable("source_bad_range", "reading \(path): Dropbox did not answer the range asked for")
        }
        return try await CopyRangeBody.collect(download.body, count: range.count, what: path)
    }
}
