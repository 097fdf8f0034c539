import FerryCore
import FerryOneDrive
import NIOCore

/// A OneDrive file a copy reads by ranges. Its version is the content tag it was opened at (a resumed copy keeps
/// bytes only of the same one); its QuickXorHash goes along as the provider's own digest.
struct OneDriveCopySource: CopySource {
    let caller: OneDriveCaller
    let item: OneDriveItem
    let account: String
    let facts: CopySourceFacts
    /// Largest range read into memory at once.
    static let maxRead: Int64 = 64 * 1024 * 1024

    init(caller: OneDriveCaller, item: OneDriveItem, account: String) {
        self.caller = caller
        self.item = item
        self.account = account
        facts = CopySourceFacts(
            size: item.size ?? 0, version: item.version ?? item.id, modified: OneDriveTime.parse(item.modified), md5: nil,
            digest: item.quickXorHash.map { ContentDigest(kind: .oneDriveQuickXor, value: $0) })
    }

    func read(_ range: Range<Int64>, context: JobContext) async throws -> ByteBuffer {
        try await readRange(range)
    }

    /// The bytes `range`, read in pieces of at most ``maxRead``.
    func readRange(_ range: Range<Int64>) async throws -> ByteBuffer {
        var whole = ByteBuffer()
        var offset = range.lowerBound
        while offset < range.upperBound {
            let end = min(range.upperBound, offset + Self.maxRead)
            var piece = try await readOnce(offset..<end)
            whole.writeBuffer(&piece)
            offset = end
        }
        return whole
    }

    private func readOnce(_ range: Range<Int64>) async throws -> ByteBuffer {
        guard range.lowerBound >= 0, range.upperBound <= facts.size else {
            throw JobFailure.permanent("bad_range", "bytes \(range) are not in \(item.name) (\(facts.size) bytes)")
        }
        let id = item.id
        return try await caller.job("reading \(item.name)") { client, token in
            let download = try await client.download(id: id, rangeStart: range.lowerBound, rangeEnd: range.upperBound - 1, accessToken: token)
            let buffer = try await RangedBody.collect(
                download.body, skip: download.status == 206 ? 0 : range.lowerBound, count: range.count)
            guard buffer.readableBytes == range.count else {
                throw OneDriveError(code: .transport, summary: "the download ended after \(buffer.readableBytes) of \(range.count) bytes")
            }
            return buffer
        }
    }
}
