import Crypto
import FerryHTTP

/// The ETag S3 gives an object completed from parts: the MD5 of the concatenated binary MD5s of
/// the parts, a dash, and the part count (`"9b2cf535f27731c974343645a3985328-3"`).
///
/// Lets a caller that hashed each part while sending it verify the completed object without
/// reading it back. (Objects encrypted with SSE-KMS or SSE-C have other ETags.)
public struct S3MultipartETag: Sendable, Hashable, CustomStringConvertible {
    /// MD5 of the concatenated part MD5s.
    public let digest: [UInt8]
    /// Number of parts.
    public let partCount: Int

    /// From the binary MD5 of each part, in part-number order.
    public init(partMD5s: [[UInt8]]) {
        var md5 = Insecure.MD5()
        for part in partMD5s { md5.update(data: part) }
        digest = Array(md5.finalize())
        partCount = partMD5s.count
    }

    /// From each part's ETag (`"hex"`, as `UploadPart` or `ListParts` return it), in part-number
    /// order; `nil` when one is not a plain MD5 ETag.
    public init?(partETags: [String]) {
        var md5s: [[UInt8]] = []
        for etag in partETags {
            guard let bytes = Hex.decode(Self.unquoted(etag)), bytes.count == 16 else { return nil }
            md5s.append(bytes)
        }
        self.init(partMD5s: md5s)
    }

    /// `hex-N`, without quotes.
    public var value: String { "\(Hex.encode(digest))-\(partCount)" }

    public var description: String { value }

    /// Whether S3's ETag (quoted or not, any hex case) is this one.
    public func matches(_ etag: String) -> Bool {
        Self.unquoted(etag).lowercased() == value
    }

    /// `etag` without surrounding whitespace, a weak-validator `W/` prefix or double quotes.
    public static func unquoted(_ etag: String) -> String {
        var text = Substring(etag.trimmingSpaces)
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
        return String(text)
    }
}
