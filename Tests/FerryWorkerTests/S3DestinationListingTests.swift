import FerryS3
import FerryTestSupport
import Foundation
import Logging
import NIOCore
import Testing

@testable import FerryWorker

/// The range walk a folder copy makes over an S3 destination (moto): which of a page's keys the bucket lacks,
/// from one walk in key order, bounded, and nothing claimed absent that was not listed.
@Suite("S3 destination listing", .tags(.postgres, .s3))
struct S3DestinationListingTests {
    @Test("keys the bucket lacks are found by one walk from the smallest key; a bounded walk answers only for what it listed; a failed listing answers nothing")
    func absentKeys() async throws {
        let setup = try await S3TransferTests.setUp("dest_listing")
        defer { try? FileManager.default.removeItem(atPath: setup.dir) }
        let logger = Logger(label: "test")
        // The bucket holds every even-numbered file, keys outside the prefix, and one just before the first key.
        let held = (0..<40).filter { $0 % 2 == 0 }.map { "dst/f\(1000 + $0)" } + ["dst/f099", "dst0/x", "ds/y", "dst/f1039z"]
        for key in held {
            _ = try await setup.client.putObject(bucket: setup.bucket, key: key, body: .bytes(ByteBuffer(string: key)))
        }
        let wanted = (0..<40).map { "dst/f\(1000 + $0)" }.shuffled()
        let odd = Set((0..<40).filter { $0 % 2 == 1 }.map { "dst/f\(1000 + $0)" })

        var listing = S3DestinationListing(client: setup.client, bucket: setup.bucket, prefix: "dst/")
        #expect(await listing.absent(among: wanted, logger: logger) == odd, "one page covers the range")

        // Pages of 5 keys, at most 3 requests: the walk starts after "dst/f100" (the smallest key less its last
        // character; dst/f099 sorts before it) and lists 15 held keys, dst/f1000 to dst/f1028. It answers for the
        // odd keys up to there and for none past it.
        listing.pageSize = 5
        listing.maxRequests = 3
        let bounded = await listing.absent(among: wanted, logger: logger)
        #expect(bounded == odd.filter { $0 < "dst/f1028" }, "\(bounded.sorted())")

        // A key outside the prefix is never answered; a bucket that cannot be listed answers nothing.
        #expect(await listing.absent(among: ["other/x"], logger: logger).isEmpty)
        let missing = S3DestinationListing(client: setup.client, bucket: setup.bucket + "-none", prefix: "dst/")
        #expect(await missing.absent(among: wanted, logger: logger).isEmpty)
    }
}
