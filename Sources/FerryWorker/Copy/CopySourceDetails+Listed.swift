import FerryCore
import FerryProviders

extension CopySourceDetails {
    /// What a Dropbox folder listing saw of this file, as a copy source's facts (`nil` when the job was not listed).
    var listedFacts: CopySourceFacts? {
        guard let size, let version else { return nil }
        return CopySourceFacts(
            size: size, version: version, modified: RemoteTimestamp.iso8601(modified),
            md5: nil, dropboxContentHash: contentHash)
    }
}
