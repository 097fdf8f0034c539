import Crypto
import FerryTestSupport
import Testing
@testable import FerryS3

@Suite("Part planning and multipart ETags", .tags(.fast))
struct PartPlanTests {
    static let mib: Int64 = 1024 * 1024

    @Test("small files go up in one PutObject, also empty ones")
    func singlePut() throws {
        for size: Int64 in [0, 1, 16 * Self.mib] {
            let plan = try S3PartPlan(fileSize: size)
            #expect(plan.isSinglePut)
            #expect(plan.partCount == 1)
            #expect(plan.partSize == size)
        }
        let bigThreshold = try S3PartPlan(fileSize: 100 * Self.mib, singlePutThreshold: 200 * Self.mib)
        #expect(bigThreshold.isSinglePut)
        // The threshold cannot exceed S3's 5 GiB PutObject limit.
        let capped = try S3PartPlan(fileSize: 6 * 1024 * Self.mib, singlePutThreshold: 10 * 1024 * Self.mib)
        #expect(!capped.isSinglePut)
    }

    @Test("parts of the preferred size, the last one smaller, ranges covering the file exactly")
    func parts() throws {
        let plan = try S3PartPlan(fileSize: 100 * Self.mib + 7, preferredPartSize: 8 * Self.mib)
        #expect(!plan.isSinglePut)
        #expect(plan.partSize == 8 * Self.mib)
        #expect(plan.partCount == 13)
        #expect(plan.range(ofPart: 1) == 0..<(8 * Self.mib))
        #expect(plan.range(ofPart: 13) == (96 * Self.mib)..<(100 * Self.mib + 7))
        var next: Int64 = 0
        for (number, range) in plan.parts {
            #expect(range.lowerBound == next)
            if number < plan.partCount { #expect(range.count == Int(plan.partSize)) }
            next = range.upperBound
        }
        #expect(next == plan.fileSize)
    }

    @Test("the preferred size is clamped to S3's 5 MiB…5 GiB")
    func clamped() throws {
        #expect(try S3PartPlan(fileSize: 50 * Self.mib, preferredPartSize: 1).partSize == 5 * Self.mib)
        #expect(try S3PartPlan(fileSize: 20 * 1024 * Self.mib, preferredPartSize: 1 << 40).partSize == S3PartPlan.maxPartSize)
    }

    @Test("a 1 TiB file fits in at most 10,000 parts of whole MiB")
    func terabyte() throws {
        let plan = try S3PartPlan(fileSize: 1 << 40)
        #expect(plan.partCount <= 10_000)
        #expect(plan.partSize == 105 * Self.mib)
        #expect(plan.partCount == 9_987)
        #expect(plan.partSize % Self.mib == 0)
        #expect(plan.range(ofPart: plan.partCount).upperBound == 1 << 40)
        #expect(plan.range(ofPart: plan.partCount).count > 0)
    }

    @Test("the largest file S3 takes is planned; a byte more, or a negative size, is refused")
    func limits() throws {
        let largest = try S3PartPlan(fileSize: S3PartPlan.maxFileSize)
        #expect(largest.partCount == 10_000)
        #expect(largest.partSize == S3PartPlan.maxPartSize)
        #expect(throws: S3Error.self) { try S3PartPlan(fileSize: S3PartPlan.maxFileSize + 1) }
        do {
            _ = try S3PartPlan(fileSize: -1)
            Issue.record("a negative size was planned")
        } catch {
            #expect(error.code == .invalidArgument)
        }
    }

    @Test("the multipart ETag is the MD5 of the part MD5s and the part count")
    func multipartETag() {
        let parts = [Array(repeating: UInt8(ascii: "a"), count: 10), Array(repeating: UInt8(ascii: "b"), count: 7), [UInt8(ascii: "c")]]
        let md5s = parts.map { Array(Insecure.MD5.hash(data: $0)) }
        let etag = S3MultipartETag(partMD5s: md5s)
        var concatenated: [UInt8] = []
        for md5 in md5s { concatenated += md5 }
        let expected = Hex.encode(Insecure.MD5.hash(data: concatenated)) + "-3"
        #expect(etag.value == expected)
        #expect(etag.partCount == 3)
        #expect(etag.matches("\"\(expected)\""))
        #expect(etag.matches(expected.uppercased()))
        #expect(etag.matches("W/\"\(expected)\""))
        #expect(!etag.matches("\"\(expected.dropLast())2\""))
        // From the parts' own ETags, as UploadPart returns them.
        #expect(S3MultipartETag(partETags: md5s.map { "\"\(Hex.encode($0))\"" }) == etag)
        #expect(S3MultipartETag(partETags: ["\"not-hex\""]) == nil)
    }

    @Test("a known multipart ETag: two parts of 5 MiB zero bytes")
    func knownETag() {
        // Computed independently (Python's hashlib): md5(5 MiB of zeros) twice, then MD5 of the 32 bytes.
        let zero = Array(Insecure.MD5.hash(data: [UInt8](repeating: 0, count: 5 * 1024 * 1024)))
        #expect(Hex.encode(zero) == "5f363e0e58a95f06cbe9bbc662c5dfb6")
        #expect(S3MultipartETag(partMD5s: [zero, zero]).value == "a7d414b9133d6483d9a1c4e04e856e3b-2")
    }
}
