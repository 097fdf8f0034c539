import FerryCore
import FerryGoogleDrive
import FerryProviders
import FerryStore
import Foundation
import Logging

/// Writes copies to Google Drive with the upload's protocol (``GoogleDriveUpload``: folders created once
/// fleet-wide, multipart for small files, resumable sessions recorded as progress for large ones, a same-name file
/// deciding by mode), each chunk read from the source as it goes up. Within one Drive account the copy is made by
/// Drive itself (`files.copy`): no byte passes through the worker.
struct GoogleDriveCopyWriter: CopyWriter {
    let uploads: GoogleDriveUploadHandler

    var provider: String { "gdrive" }

    func accepts(fileDestination destination: String) -> Bool {
        guard let location = try? GoogleDriveLocation(destination, field: "to", line: nil), let path = location.path else { return false }
        return !path.hasSuffix("/") && !GoogleDriveLocation.components(of: path).isEmpty
    }

    func look(_ job: ClaimedJob, source: any CopySource, context: JobContext) async throws -> CopyDestinationLook {
        let (location, _, resolver) = try destination(job, context: context)
        guard let path = location.path, let file = try await resolver.item(at: path), !file.isFolder else { return .absent }
        let facts = source.facts
        let found: [String: JSONValue] = ["id": .string(file.id), "size": .int(file.size ?? 0), "md5": .string(file.md5Checksum ?? "")]
        // The same content (the source's MD5), or the same size and modification time (rclone's check).
        let same: Bool
        if file.size != facts.size {
            same = false
        } else if let md5 = facts.md5 {
            same = file.md5Checksum == md5
        } else if let seconds = facts.modifiedSeconds, let stored = GoogleDriveTime.parse(file.modifiedTime) {
            same = Int64(stored.timeIntervalSince1970.rounded(.down)) == seconds
        } else {
            same = false
        }
        return same ? .same(found) : .different(version: file.id, details: found)
    }

    func write(_ job: ClaimedJob, source: any CopySource, seen: String?, context: JobContext) async throws -> JobResult {
        let (location, caller, resolver) = try destination(job, context: context)
        guard let path = location.path, let name = GoogleDriveLocation.components(of: path).last else {
            throw JobFailure.permanent("bad_location", "a copy names a file path: gdrive:ACCOUNT:/folder/name")
        }
        let folder = Array(GoogleDriveLocation.components(of: path).dropLast())
        let details = try job.details(as: GoogleDriveUploadDetails.self)
        let facts = source.facts
        if let inside = source as? GoogleDriveCopySource, inside.account == location.account, GoogleDriveUploadCursor(session: job.session, size: facts.size) == nil,
            let copied = try await copyInside(inside, name: name, folder: folder, details: details, caller: caller, resolver: resolver)
        {
            return copied
        }
        let modified = facts.modified.map { GoogleDriveTime.format(nanoseconds: Int64($0.timeIntervalSince1970 * 1_000_000) * 1_000) }
        var upload = GoogleDriveUpload(
            handler: uploads, job: job, context: context, caller: caller, source: .copy(source), size: facts.size, md5: facts.md5,
            metadata: GoogleDriveNewFile(name: name, modifiedTime: modified), details: details, resolver: resolver, folder: folder)
        upload.sourceVersion = facts.version
        let result = try await upload.run()
        var merged = result.details?.objectValue ?? [:]
        merged.merge(facts.resultDetails) { ours, _ in ours }
        return JobResult(bytes: result.bytes, details: .object(merged))
    }

    /// Drive copies the file itself when nothing of that name is in the folder; `nil` when one is (the upload's rules
    /// for a same-name file then decide, through the streamed path).
    private func copyInside(
        _ source: GoogleDriveCopySource, name: String, folder: [String], details: GoogleDriveUploadDetails,
        caller: GoogleDriveCaller, resolver: GoogleDrivePathResolver
    ) async throws -> JobResult? {
        guard let parentID = try await resolver.folderID(folder, create: true) else {
            throw JobFailure.retryable("gdrive_folder", "the destination folder could not be made")
        }
        guard try await resolver.files(named: name, in: parentID).isEmpty else { return nil }
        let id = source.file.file.id
        // Not sent twice at once (a second copy of the name): the next attempt looks at the folder first.
        var once = caller
        once.transientRetries = 0
        let file = try await once.job("copying inside the Drive") { client, token in
            try await client.copyFile(id: id, name: name, parentID: parentID, accessToken: token)
        }
        var details = source.facts.resultDetails
        details.merge(["id": .string(file.id), "name": .string(file.name), "server_side": .bool(true)]) { _, ours in ours }
        return JobResult(bytes: source.facts.size, details: .object(details))
    }

    private func destination(_ job: ClaimedJob, context: JobContext) throws -> (GoogleDriveLocation, GoogleDriveCaller, GoogleDrivePathResolver) {
        let location = try GoogleDriveLocation(job: job.destination)
        let caller = GoogleDriveCaller(account: location.account, tokens: uploads.tokens, logger: context.logger)
        return (location, caller, GoogleDrivePathResolver(caller: caller, environment: uploads.environment, cache: uploads.folders, account: location.account))
    }
}
