import FerryCore

/// `s3:ACCOUNT:bucket/key`: an account (which holds the keys, region and endpoint), a bucket, and an object key or
/// a key prefix (ending in `/`).
public struct S3Location: Sendable, Hashable {
    public var account: String
    public var bucket: String
    /// The object key, or the prefix when it ends in `/` (empty: the whole bucket).
    public var key: String

    /// True when the location names a prefix (a "folder") rather than one object.
    public var isPrefix: Bool { key.isEmpty || key.hasSuffix("/") }

    /// The canonical text form, as stored in the job.
    public var text: String { "s3:\(account):\(bucket)/\(key)" }

    public static let maxKeyBytes = 1024

    public init(account: String, bucket: String, key: String) {
        self.account = account
        self.bucket = bucket
        self.key = key
    }

    /// Parses and checks the location, naming `field` in any refusal.
    public init(_ text: String, field: String, line: Int?) throws(ValidationIssue) {
        func issue(_ problem: String, _ fix: String) -> ValidationIssue {
            ValidationIssue(line: line, field: field, problem: problem, fix: fix)
        }
        let rest = text.dropFirst("s3:".count)
        guard let colon = rest.firstIndex(of: ":") else {
            throw !EndpointSyntax.isValidAccountName(String(rest))
                ? issue("S3 location has no account", "write s3:ACCOUNT:bucket/key (the account holds the keys and region)")
                : issue("S3 location has no bucket after the account", "write s3:\(rest):bucket/key, or s3:\(rest):bucket/ for the whole bucket")
        }
        account = String(rest[..<colon])
        guard EndpointSyntax.isValidAccountName(account) else {
            throw EndpointSyntax.accountNameIssue(field: field, line: line)
        }
        let path = rest[rest.index(after: colon)...]
        guard let slash = path.firstIndex(of: "/") else {
            throw issue("S3 location has no / after the bucket", "write s3:ACCOUNT:bucket/key, or s3:ACCOUNT:bucket/ for the whole bucket")
        }
        bucket = String(path[..<slash])
        key = String(path[path.index(after: slash)...])
        guard Self.isValidBucketName(bucket) else {
            throw issue(
                "bucket name must be 3-63 lowercase letters, digits, . and -, starting and ending with a letter or digit",
                "check the bucket's name (s3:ACCOUNT:bucket/key)")
        }
        guard key.utf8.count <= Self.maxKeyBytes else {
            throw issue("object key is longer than 1024 bytes", "shorten the key")
        }
        if key.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw issue("object key contains a control character", "use printable names")
        }
        if key.hasPrefix("/") || key.contains("//") {
            throw issue("object key has an empty path segment (// or a leading /)", "write s3:ACCOUNT:bucket/folder/name")
        }
    }

    /// Bucket naming rules of S3 general purpose buckets (also accepted by MinIO, Ceph, R2 and B2).
    public static func isValidBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        let isLowerAlnum = { (b: UInt8) in (48...57).contains(b) || (97...122).contains(b) }
        guard isLowerAlnum(bytes.first!), isLowerAlnum(bytes.last!) else { return false }
        guard bytes.allSatisfy({ isLowerAlnum($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }) else { return false }
        guard !name.contains("..") else { return false }
        // Not an IPv4 address.
        let parts = name.split(separator: ".")
        if parts.count == 4 && parts.allSatisfy({ UInt8($0) != nil }) { return false }
        return true
    }
}
