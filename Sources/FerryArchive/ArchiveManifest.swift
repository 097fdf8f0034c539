import FerryStore
import Foundation

/// The sidecar `FILE.manifest.json` written next to each archive file once its archive is committed.
public struct ArchiveManifest: Codable, Sendable, Equatable {
    public var format: Int
    public var archiveID: String
    /// The archive file's name (in the same directory as the manifest).
    public var file: String
    public var sha256: String
    public var bytes: Int
    public var jobs: Int
    public var events: Int
    public var firstPosition: Int?
    public var lastPosition: Int?
    public var finishedBefore: String
    public var createdAt: String
    /// HMAC-SHA256 of the manifest's facts under the key of `ferry archive --signing-key` (hex); absent when the
    /// archive was written without one.
    public var signature: String?

    enum CodingKeys: String, CodingKey {
        case format, file, sha256, bytes, jobs, events, signature
        case archiveID = "archive_id"
        case firstPosition = "first_position"
        case lastPosition = "last_position"
        case finishedBefore = "finished_before"
        case createdAt = "created_at"
    }

    public init(record: ArchiveRecord) {
        format = ArchiveHeader.formatVersion
        archiveID = record.archiveID.uuidString.lowercased()
        file = (record.file as NSString).lastPathComponent
        sha256 = record.sha256
        bytes = record.bytes
        jobs = record.jobs
        events = record.events
        firstPosition = record.firstPosition
        lastPosition = record.lastPosition
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
