/// One page of `ListObjectsV2`.
public struct S3ObjectPage: Sendable, Hashable {
    /// Objects on this page, in key order.
    public var objects: [S3ObjectSummary]
    /// With a delimiter: the "folders" rolled up on this page.
    public var commonPrefixes: [String]
    /// Whether more pages follow.
    public var isTruncated: Bool
    /// Pass as `continuationToken` for the next page; `nil` on the last page.
    public var nextContinuationToken: String?

    public init(objects: [S3ObjectSummary], commonPrefixes: [String], isTruncated: Bool, nextContinuationToken: String?) {
        self.objects = objects
        self.commonPrefixes = commonPrefixes
        self.isTruncated = isTruncated
        self.nextContinuationToken = nextContinuationToken
    }
}
