/// How to split a file for upload: one `PutObject` up to a threshold, otherwise parts of one size
/// (the last may be smaller) within S3's limits of 5 MiB to 5 GiB per part and 10,000 parts.
///
/// The part size grows beyond the preferred one when the file would otherwise need more than
/// 10,000 parts; it is then rounded up to whole MiB. A 1 TiB file gets 105 MiB parts (9,987 of them).
public struct S3PartPlan: Sendable, Hashable {
    /// S3's smallest part (except the last).
    public static let minPartSize: Int64 = 5 * 1024 * 1024
    /// S3's largest part, also the largest single `PutObject`.
    public static let maxPartSize: Int64 = 5 * 1024 * 1024 * 1024
    /// S3's most parts per upload.
    public static let maxPartCount = 10_000
    /// Largest file that fits: 10,000 parts of 5 GiB.
    public static let maxFileSize: Int64 = maxPartSize * Int64(maxPartCount)
    /// Default preferred part size.
    public static let defaultPartSize: Int64 = 16 * 1024 * 1024

    /// Size of the whole file.
    public let fileSize: Int64
    /// Size of every part but the last (the whole file for a single PUT).
    public let partSize: Int64
    /// Number of parts (1 for a single PUT, also for an empty file).
    public let partCount: Int
    /// Whether the file goes up in one `PutObject` rather than a multipart upload.
    public let isSinglePut: Bool

    /// Plans the upload of `fileSize` bytes.
    ///
    /// - Parameters:
    ///   - preferredPartSize: part size to use unless the file needs bigger parts; clamped to 5 MiB…5 GiB.
    ///   - singlePutThreshold: files up to this size go up in one request; default: one preferred
    ///     part. Capped at 5 GiB.
    /// - Throws: `S3Error.invalidArgument` for a negative size or a file over ``maxFileSize``.
    public init(fileSize: Int64, preferredPartSize: Int64 = defaultPartSize, singlePutThreshold: Int64? = nil) throws(S3Error) {
        guard fileSize >= 0 else {
            throw S3Error(code: .invalidArgument, operation: "PartPlan", message: "negative file size \(fileSize)")
        }
        guard fileSize <= Self.maxFileSize else {
            throw S3Error(code: .invalidArgument, operation: "PartPlan",
                          message: "\(fileSize) bytes is more than S3 accepts in one object (\(Self.maxFileSize) bytes)")
        }
        self.fileSize = fileSize
        let preferred = min(max(preferredPartSize, Self.minPartSize), Self.maxPartSize)
        let threshold = min(max(singlePutThreshold ?? preferred, 0), Self.maxPartSize)
        if fileSize <= threshold {
            isSinglePut = true
            partSize = fileSize
            partCount = 1
            return
        }
        let mebibyte: Int64 = 1024 * 1024
        var size = preferred
        let needed = (fileSize + Int64(Self.maxPartCount) - 1) / Int64(Self.maxPartCount)
        if needed > size {
            size = min((needed + mebibyte - 1) / mebibyte * mebibyte, Self.maxPartSize)
        }
        isSinglePut = false
        partSize = size
        partCount = Int((fileSize + size - 1) / size)
    }

    /// Byte range of part `partNumber` (1-based) in the file.
    public func range(ofPart partNumber: Int) -> Range<Int64> {
        precondition((1...partCount).contains(partNumber), "part \(partNumber) of \(partCount)")
        let start = Int64(partNumber - 1) * partSize
        return start..<min(start + partSize, fileSize)
    }

    /// Every part's number and byte range, in order.
    public var parts: [(partNumber: Int, range: Range<Int64>)] {
        (1...partCount).map { ($0, range(ofPart: $0)) }
    }
}
