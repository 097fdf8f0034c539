import FerryCore
import Foundation

/// The first line of every archive file: what it is, so a file restores even without its manifest.
public struct ArchiveHeader: Sendable, Equatable {
    /// Version of the file format; bumped when lines change shape.
    public static let formatVersion = 1

    public var archiveID: UUID
    public var finishedBefore: Date

    public init(archiveID: UUID, finishedBefore: Date) {
        self.archiveID = archiveID
        self.finishedBefore = finishedBefore
    }

    var jsonLine: String {
        JSONValue.object([
            "ferry_archive": .int(Int64(Self.formatVersion)),
            "archive_id": .string(archiveID.uuidString.lowercased()),
            "finished_before": .string(finishedBefore.archiveTimestamp),
        ]).jsonText
    }

    /// Parses a header line; `nil` when the line is not one.
    init?(line: String) {
        guard case .object(let fields)? = try? JSONValue.parse(line),
              case .int(let version)? = fields["ferry_archive"], version == Int64(Self.formatVersion),
              case .string(let id)? = fields["archive_id"], let archiveID = UUID(uuidString: id),
              case .string(let time)? = fields["finished_before"], let finishedBefore = Date(archiveTimestamp: time)
        else { return nil }
        self.archiveID = archiveID
        self.finishedBefore = finishedBefore
    }
}
