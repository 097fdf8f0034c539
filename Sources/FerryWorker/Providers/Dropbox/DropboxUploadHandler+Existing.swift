import FerryCore
import FerryDropbox
import FerryProviders

/// An upload's look at its destination before it writes (`if_changed`, `existing`), and the commit of a changed
/// file as a new revision of the one seen.
extension DropboxUploadHandler.Upload {
    /// What the look decided.
    enum Look {
        /// Nothing to write: the job's result.
        case done(JobResult)
        /// Write; `seen` is the revision of the different file there, if any.
        case write(seen: String?)
    }

    /// Looks at the destination: the same content is not sent again, `existing=ignore` leaves any file alone,
    /// `existing=immutable` never replaces a different one, and otherwise a different file's revision is returned
    /// for the commit to replace.
    func lookBeforeWriting() async throws -> Look {
        guard let present = try await destinationFile() else { return .write(seen: nil) }
        let facts: [String: JSONValue] = [
            "path": .string(present.pathDisplay), "rev": .string(present.rev), "size": .int(present.size),
            "content_hash": .string(present.contentHash ?? ""),
        ]
        let policy = ExistingTarget.policy(of: job)
        if policy == .ignore { return .done(ExistingTarget.leftAlone(facts, logger: context.logger)) }
        if try await holdsOurContent(present) {
            context.logger.info("the destination holds the same content already; not uploaded again")
            return .done(.unchanged(facts))
        }
        if policy == .immutable { throw ExistingTarget.immutableConflict(job.destination) }
        return .write(seen: present.rev)
    }

    /// A re-run's look (any attempt after the first, whatever the options): an earlier attempt may have committed
    /// and lost its outcome (a lapsed lease, a kill between the commit and its record). Our content at the
    /// destination is then the job's result, unchanged; a second commit could only add a copy beside it
    /// (`autorename`) or meet it as a conflict. Anything else there is left to the commit's own rules.
    func storedByEarlierAttempt() async throws -> JobResult? {
        guard let present = try await destinationFile(), try await holdsOurContent(present) else { return nil }
        context.logger.info("an earlier attempt stored this content already (its outcome was not recorded); not uploaded again")
        return .unchanged([
            "path": .string(present.pathDisplay), "id": .string(present.id), "rev": .string(present.rev), "size": .int(present.size),
            "content_hash": .string(present.contentHash ?? ""),
        ])
    }

    /// The file at the destination, or `nil`: nothing there, or a folder (which the commit meets as a conflict).
    func destinationFile() async throws -> DropboxFileMetadata? {
        let entry: DropboxEntry
        do {
            entry = try await call("checking the destination") { client, token in
                try await client.getMetadata(path: commit.path, accessToken: token)
            }
        } catch let failure as JobFailure where failure.code == "not_found" {
            return nil
        }
        guard case .file(let metadata) = entry else { return nil }
        return metadata
    }

    /// Whether `metadata` is of exactly our bytes (size, then `content_hash`).
    func holdsOurContent(_ metadata: DropboxFileMetadata) async throws -> Bool {
        guard metadata.size == size else { return false }
        try await catchUp(to: size)
        return metadata.contentHash == hash.finalize()
    }

    /// Sends the bytes and commits them (one request, a batched session or a session by size), returning what
    /// Dropbox stored. A commit replacing a seen revision that meets a newer one fails: another writer changed the
    /// file since it was compared, and its version is not overwritten.
    func stored(chunkSize: Int, batching: Bool) async throws -> DropboxFileMetadata {
        do {
            if size > Int64(chunkSize) {
                return usesConcurrentSession ? try await concurrentSession() : try await session()
            }
            return batching ? try await batched() : try await single()
        } catch let failure as JobFailure where failure.code == "destination_exists" {
            guard replacing == nil, case .update(let rev) = commit.mode else { throw failure }
            throw JobFailure.permanent(
                "destination_changed",
                "\(commit.path) changed at the destination after it was compared (rev \(rev) was seen; another writer stored a newer one); it is not overwritten: look at both versions; a retry compares again and replaces it")
        }
    }
}
