import FerryDropbox

extension DropboxContentHasher: ContentHasher {}

extension ContentDigestKind {
    /// Dropbox's `content_hash`. The name is also the S3 metadata key copies have kept it under since copies began.
    static let dropbox = ContentDigestKind(name: "dropbox-content-hash") { DropboxContentHasher() }
}
