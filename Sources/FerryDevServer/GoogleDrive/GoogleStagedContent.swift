/// Bytes an upload received into a temporary file, with their checksums, waiting to become a revision.
struct GoogleStagedContent: Sendable {
    var path: String
    var size: Int64
    var md5: String
    var sha256: String
}
