import AsyncHTTPClient
import FerryCore
import FerryGoogleDrive
import FerryProviders
import FerryStore
import Foundation

/// One attempt at fetching one Drive file (or the export of a Google Docs item) into a local path.
///
/// Bytes go into a ``PartialDownload`` beside the target; every 8 MiB or ~2 s they are synced and recorded with the
/// file's `headRevisionId`, so a new attempt resumes with `Range` unless the file changed meanwhile. The finished file
/// must have the size and `md5Checksum` Drive reports, and gets the file's `modifiedTime`. Exports have no fixed bytes:
/// they are fetched whole each attempt.
struct GoogleDriveFileFetch: Sendable {
    let job: ClaimedJob
    let context: JobContext
    let caller: GoogleDriveCaller
    let details: GoogleDriveFetchDetails
    let file: GoogleDriveFile
    /// Local path to write.
    let target: String


    func run() async throws -> JobResult {
        if let skipped = try await ExistingTarget.skipIfPresent(target, job: job, context: context) { return skipped }
        if file.isGoogleDocument { return try await exported() }
        if let unchanged = try await alreadyPresent() { return unchanged }
        guard let revision = file.headRevisionId, let size = file.size else {
            throw JobFailure.permanent("not_downloadable", "\(file.name) has no content Google Drive can send")
        }
        var digests: Set<PartialDownload.Digest> = [.md5]
        if details.sha256 != nil { digests.insert(.sha256) }
        let recorded = GoogleDriveDownloadCursor(session: job.session).flatMap { $0.revision == revision ? $0 : nil }
        let partial = try await PartialDownload.open(
            target: target, root: details.root, jobID: job.jobID, resumeAt: recorded?.offset, digests: digests, context: context)
        let download = try await start(partial)
        try await partial.receive(download.body, context: context, total: size, what: file.name) { GoogleDriveDownloadCursor(offset: $0, revision: revision).json }
        let finished = try await partial.finish(
            expectedLength: size, expectedSHA256: details.sha256, expectedContentHash: nil, expectedMD5: file.md5Checksum,
            modified: GoogleDriveTime.parse(file.modifiedTime))
        var result: [String: JSONValue] = ["bytes": .int(finished.bytes), "id": .string(file.id), "revision": .string(revision)]
        if let md5 = finished.md5 { result["md5"] = .string(md5) }
        if let listed = details.listedRevision, listed != revision { result["changed_since_listing"] = .bool(true) }
        return JobResult(bytes: finished.bytes, details: .object(result))
    }

    /// A file a listing saw (size and MD5) that is already at the target with the same size and MD5 is not downloaded
    /// again: a folder fetched again brings only new or changed files.
    private func alreadyPresent() async throws -> JobResult? {
        guard let md5 = file.md5Checksum, let size = file.size, details.sha256 == nil else { return nil }
        let target = self.target
        guard let local = try? await BlockingIO.run({ LocalContentHash.md5(of: target, size: size) }), local == md5 else { return nil }
        context.logger.info("already present with the same size and MD5; not downloaded again")
        return .unchanged(["size": .int(size), "md5": .string(md5)])
    }

    /// Asks for the bytes from the partial file's end; an ignored range or an offset past the end starts over.
    private func start(_ partial: PartialDownload) async throws -> GoogleDriveDownload {
        let id = file.id
        let name = file.name
        return try await partial.resume(
            ranged: { offset in
                try await caller.call("downloading \(name)") { client, token in
                    try await client.download(id: id, rangeStart: offset, accessToken: token)
                }
            },
            whole: { try await caller.job("downloading \(name)") { client, token in try await client.download(id: id, accessToken: token) } },
            pastEnd: { ($0 as? GoogleDriveError)?.httpStatus == 416 },
            failure: { error -> any Error in
                guard let failure = error as? GoogleDriveError else { return error }
                return failure.jobFailure(doing: "downloading \(name)")
            },
            context: context)
    }

    /// A Google Docs item in the format the job asks for, fetched whole (exports have no fixed bytes to resume or check).
    private func exported() async throws -> JobResult {
        guard let format = details.export else {
            throw Self.needsExport(file)
        }
        guard let mimeType = format.mimeType(for: file.mimeType) else {
            let offered = GoogleDriveExportFormat.offered(for: file.mimeType).map(\.rawValue).joined(separator: ", ")
            throw JobFailure.permanent(
                "export_unavailable", "\(file.name) (\(file.mimeType)) cannot be exported as \(format.rawValue); --option export= takes \(offered) for it")
        }
        let partial = try await PartialDownload.open(
            target: target, root: details.root, jobID: job.jobID, resumeAt: nil, digests: [], context: context)
        let id = file.id
        let download = try await caller.job("exporting \(file.name)") { client, token in
            try await client.export(id: id, mimeType: mimeType, accessToken: token)
        }
        try await partial.restart()
        try await partial.receive(download.body, context: context, total: nil, what: file.name) { _ in nil }
        let finished = try await partial.finish(
            expectedLength: nil, expectedSHA256: nil, expectedContentHash: nil, modified: GoogleDriveTime.parse(file.modifiedTime))
        return JobResult(bytes: finished.bytes, details: .object([
            "bytes": .int(finished.bytes), "id": .string(file.id), "export": .string(format.rawValue), "mime_type": .string(mimeType),
        ]))
    }

    /// The refusal of a Google Docs item fetched without a format, naming the option and what it takes.
    static func needsExport(_ file: GoogleDriveFile) -> JobFailure {
        let offered = GoogleDriveExportFormat.offered(for: file.mimeType).map(\.rawValue)
        let formats = offered.isEmpty ? "" : " (\(offered.joined(separator: ", ")))"
        return JobFailure.permanent(
            "google_doc_needs_export",
            "\(file.name) is a Google Docs item (\(file.mimeType)) with no bytes of its own: fetch it with --option export=FORMAT\(formats)")
    }
}
