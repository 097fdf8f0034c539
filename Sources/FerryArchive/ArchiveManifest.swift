import FerryStore
import Foundation

/// The sidecar `FILE.manifest.json` written next to each archive file once its archive is committed.
public struct ArchiveManifest: ArchiveFactsCarrier, Sendable, Equatable {
    public var format: Int
    public var archiveID: String
    /// The archive file's name (in the same directory as the manifest).
    public var file: String
    /// What the file holds (read as `manifest.sha256` and so on); in the JSON, fields beside the others.
    public var facts: ArchiveFacts
    public var finishedBefore: String
    public var createdAt: String
    /// HMAC-SHA256 of the manifest's facts under the key of `ferry archive --signing-key` (hex); absent when the
    /// archive was written without one.
    public var signature: String?

    enum CodingKeys: String, CodingKey {
        case format, file, signature
        case archiveID = "archive_id"
        case finishedBefore = "finished_before"
        case createdAt = "created_at"
    }

    public init(record: ArchiveRecord) {
        format = ArchiveHeader.formatVersion
        archiveID = record.archiveID.uuidString.lowercased()
        file = (record.file as NSString).lastPathComponent
        facts = record.facts
        finishedBefore = record.finishedBefore.archiveTimestamp
        createdAt = record.createdAt.archiveTimestamp
        signature = nil
    }

    /// Where the manifest of `file` lives.
    public static func path(for file: String) -> String { file + ".manifest.json" }

    /// Reads a manifest; `nil` when there is none.
    public static func read(for file: String) throws -> ArchiveManifest? {
        let path = Self.path(for: file)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try JSONDecoder().decode(ArchiveManifest.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw ArchiveError(.corrupt, "manifest \(path) cannot be read: \(error)",
                               fix: "remove the manifest to restore from the database's record, or restore the file from a backup")
        }
    }

    /// Writes the manifest durably (temporary file, sync, rename, sync the directory).
    public func write(for file: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        try DurableFile.write(data, to: Self.path(for: file))
    }
}
