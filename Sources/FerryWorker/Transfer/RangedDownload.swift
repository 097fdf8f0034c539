/// A download's answer as far as resuming goes: its HTTP status and where its `Content-Range` starts.
protocol RangedDownload: Sendable {
    var status: Int { get }
    var contentRangeStart: Int64? { get }
}
