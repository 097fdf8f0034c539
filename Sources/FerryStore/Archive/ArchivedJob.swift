import Foundation

/// Where an archived job went: `ferry events JOB` says so instead of "no such job".
public struct ArchivedJob: Sendable, Equatable {
    public var jobID: UUID
    public var archiveID: UUID
    public var file: String
    public var archivedAt: Date
}
