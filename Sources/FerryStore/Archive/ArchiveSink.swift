/// Where the lines of one archive file go while the store reads them (the file writer lives in FerryArchive).
///
/// Used on the connection's thread, inside the transaction that removes the archived rows: the rows go only
/// when `finish()` has made the file durable.
public protocol ArchiveSink {
    /// One JSON Lines record (one job with its events), without the newline.
    mutating func write(line: [UInt8]) throws
    /// Flushes and syncs the file; returns what the archive record must say about it.
    mutating func finish() throws -> ArchiveFileFacts
}
