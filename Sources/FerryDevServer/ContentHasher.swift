import FerryDropbox

/// Dropbox's content hash, as the emulated Dropbox states it: the client's own hasher (checked against Dropbox's
/// published test vectors in FerryDropboxTests), so the hash is written once.
typealias ContentHasher = DropboxContentHasher
