import FerryGoogleDrive
import NIOCore

/// A Drive file opened for reading in ranges, with the facts a copy needs: its size, MD5 and version (the
/// `headRevisionId`: a copy resumes only the same version). Google Docs items have no bytes and are refused.
struct GoogleDriveReadableFile: Sendable {
    let caller: GoogleDriveCaller
    let file: GoogleDriveFile
    /// Largest range read into memory at once.
    static let maxRead: Int64 = 256 * 1024 * 1024

    var size: Int64 { file.size ?? 0 }
    var md5: String? { file.md5Checksum }
    var version: String? { file.headRevisionId }

    /// Opens the file `id`: its metadata now, its bytes on each read.
    static func open(id: String, caller: GoogleDriveCaller) async throws -> GoogleDriveReadableFile {
        let file = try await caller.job("looking up the file") { client, token in try await client.getFile(id: id, accessToken: token) }
        guard !file.isFolder, !file.isGoogleDocument, file.size != nil else {
            throw file.isFolder
                ? JobFailure.permanent("not_a_file", "\(file.name) is a folder")
                : GoogleDriveFileFetch.needsExport(file)
        }
        return GoogleDriveReadableFile(caller: caller, file: file)
    }

    /// The bytes `range` of the file (at most ``maxRead``).
    func read(_ range: Range<Int64>) async throws -> ByteBuffer {
        guard !range.isEmpty else { return ByteBuffer() }
        guard range.lowerBound >= 0, range.upperBound <= size, Int64(range.count) <= Self.maxRead else {
            throw JobFailure.permanent("bad_range", "bytes \(range) are not in \(file.name) (\(size) bytes)")
        }
        let id = file.id
        return try await caller.job("reading \(file.name)") { client, token in
            let download = try await client.download(id: id, rangeStart: range.lowerBound, rangeEnd: range.upperBound - 1, accessToken: token)
            let buffer = try await RangedBody.collect(
                download.body, skip: download.status == 206 ? 0 : range.lowerBound, count: range.count)
            guard buffer.readableBytes == range.count else {
                throw GoogleDriveError(code: .transport, summary: "the download ended after \(buffer.readableBytes) of \(range.count) bytes")
            }
            return buffer
        }
    }
}
