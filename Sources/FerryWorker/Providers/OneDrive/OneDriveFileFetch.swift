import AsyncHTTPClient
import FerryCore
import FerryOneDrive
import FerryProviders
import FerryStore
import Foundation

/// One attempt at fetching one OneDrive file into a local path: bytes go into a ``PartialDownload`` beside the
/// target, recorded with the item's content version, so a new attempt resumes with `Range` unless the file changed
/// meanwhile. The finished file must have the size and `quickXorHash` Graph states, and gets the item's
/// modification time.
struct OneDriveFileFetch: Sendable {
    let job: ClaimedJob
    let context: JobContext
    let caller: OneDriveCaller
    let details: OneDriveFetchDetails
    let item: OneDriveItem
    let target: String

    func run() async throws -> JobResult {
        if let skipped = try await ExistingTarget.skipIfPresent(target, job: job, context: context) { return skipped }
        guard let size = item.size else {
            throw JobFailure.permanent("not_downloadable", "\(item.name) has no content OneDrive can send")
        }
        let version = item.version ?? item.id
        if let unchanged = try await alreadyPresent(size) { return unchanged }
        var digests: Set<PartialDownload.Digest> = [.provider(.oneDriveQuickXor)]
        if details.sha256 != nil { digests.insert(.sha256) }
        let recorded = OneDriveDownloadCursor(session: job.session).flatMap { $0.version == version ? $0 : nil }
        let partial = try await PartialDownload.open(
            target: target, root: details.root, jobID: job.jobID, resumeAt: recorded?.offset, digests: digests, context: context)
        let download = try await start(partial)
        try await partial.receive(download.body, context: context, total: size, what: item.name) { OneDriveDownloadCursor(offset: $0, version: version).json }
        let finished = try await partial.finish(
            expectedLength: size, expectedSHA256: details.sha256, expectedContentHash: item.quickXorHash, modified: OneDriveTime.parse(item.modified))
        var result: [String: JSONValue] = ["bytes": .int(finished.bytes), "id": .string(item.id), "version": .string(version)]
        if let hash = finished.contentHash { result["quick_xor"] = .string(hash) }
        if let listed = details.listedVersion, listed != version { result["changed_since_listing"] = .bool(true) }
        return JobResult(bytes: finished.bytes, details: .object(result))
    }

    /// A file already at the target with the same size and QuickXorHash is not downloaded again: a folder fetched
    /// again brings only new or changed files.
    private func alreadyPresent(_ size: Int64) async throws -> JobResult? {
        guard let hash = item.quickXorHash, details.sha256 == nil else { return nil }
        let target = self.target
        guard let local = try? await BlockingIO.run({ LocalContentHash.digest(.oneDriveQuickXor, of: target, size: size) }), local == hash else { return nil }
        context.logger.info("already present with the same size and QuickXorHash; not downloaded again")
        return .unchanged(["size": .int(size), "quick_xor": .string(hash)])
    }

    /// Asks for the bytes from the partial file's end; an ignored range or an offset past the end starts over.
    private func start(_ partial: PartialDownload) async throws -> OneDriveDownload {
        let id = item.id
        let name = item.name
        return try await partial.resume(
            ranged: { offset in
                try await caller.call("downloading \(name)") { client, token in
                    try await client.download(id: id, rangeStart: offset, accessToken: token)
                }
            },
            whole: { try await caller.job("downloading \(name)") { client, token in try await client.download(id: id, accessToken: token) } },
            pastEnd: { ($0 as? OneDriveError)?.code == .rangeNotSatisfiable },
            failure: { error -> any Error in
                guard let failure = error as? OneDriveError else { return error }
                return failure.jobFailure(doing: "downloading \(name)")
            },
            context: context)
    }
}
