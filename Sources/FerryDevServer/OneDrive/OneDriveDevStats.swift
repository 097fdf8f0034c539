/// Counters of the OneDrive emulation (`GET /__dev/onedrive/stats`, `DevServer.oneDriveStats()`).
public struct OneDriveDevStats: Codable, Sendable, Equatable {
    public var simpleUploads = 0
    public var sessionsCreated = 0
    public var sessionsCompleted = 0
    public var statusQueries = 0
    /// Start offset of every range PUT, per session id, in arrival order.
    public var rangeStartsPerSession: [String: [Int64]] = [:]
    public var bytesReceived: Int64 = 0
    public var tokenRefreshes = 0
    public var throttled = 0
    public var childrenPages = 0
    public var downloads = 0
    public var rangedDownloads = 0
    /// Items created per name (a second file of one name would show here).
    public var filesCreatedPerName: [String: Int] = [:]
    public var replaced = 0
    /// Items deleted (a folder counts with everything in it).
    public var deleted = 0

    public init() {}
}
