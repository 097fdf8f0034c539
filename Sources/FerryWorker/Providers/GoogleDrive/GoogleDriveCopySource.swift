import FerryCore
import FerryGoogleDrive
import NIOCore

/// A Drive file a copy reads by ranges. Its version is the head revision it was opened at (a resumed copy keeps
/// bytes only of the same one); Drive serves the current revision, so a file changed mid-copy is caught where the
/// destination checks the MD5 the source stated.
struct GoogleDriveCopySource: CopySource {
    let file: GoogleDriveReadableFile
    let account: String
    let facts: CopySourceFacts

    init(file: GoogleDriveReadableFile, account: String) {
        self.file = file
        self.account = account
        facts = CopySourceFacts(
            size: file.size, version: file.version ?? file.md5 ?? file.file.id,
            modified: GoogleDriveTime.parse(file.file.modifiedTime), md5: file.md5)
    }

    func read(_ range: Range<Int64>, context: JobContext) async throws -> ByteBuffer {
        var offset = range.lowerBound
        var whole = ByteBuffer()
        // In pieces of at most what one read holds in memory.
        while offset < range.upperBound {
            let end = min(range.upperBound, offset + GoogleDriveReadableFile.maxRead)
            var piece = try await file.read(offset..<end)
            whole.writeBuffer(&piece)
            offset = end
        }
        return whole
    }
}
