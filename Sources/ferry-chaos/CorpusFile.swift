/// One file of the run: its original bytes on local disk, and where Ferry moves it.
struct CorpusFile: Sendable {
    enum Role: String, Sendable {
        /// Uploaded by Ferry to `/uploads/NAME` on the dev server.
        case upload
        /// Put on the dev server beforehand at `/fetch/NAME`; fetched by Ferry, one job each.
        case dropboxFetch
        /// Served by the dev server at `/web/chaos/NAME`; fetched by Ferry, one job each.
        case webFetch
        /// Put on the dev server beforehand in `/folder/`; one listing job fans out a fetch per file.
        case folderFetch
    }

    let role: Role
    let name: String
    let size: Int
    /// The original bytes.
    let localPath: String
    /// The file's path in the account, for every role but `webFetch` (its path under `/web/`).
    let remotePath: String
    /// Where a fetch writes it (uploads: nil).
    let fetchedPath: String?

    /// A file of tens of MiB: an upload session (several chunks) rather than one request.
    var isBig: Bool { size > CorpusFile.bigThreshold }

    static let bigThreshold = 8 * 1024 * 1024
}
