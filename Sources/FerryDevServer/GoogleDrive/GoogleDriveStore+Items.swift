import FerryCore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Creating, changing, copying and deleting items. Names are not unique: two creates of one name in one folder make
/// two files, as in Drive.
extension GoogleDriveStore {
    /// Creates a file (with `content`, or empty), a folder or a Google Docs item (by `mimeType`, without content).
    func create(account: String, metadata: GoogleDriveMetadata, content: GoogleStagedContent?) throws(GoogleAPIError) -> GoogleDriveItem {
        try state.withLock { state throws(GoogleAPIError) -> GoogleDriveItem in
            let parent = try Self.folder(in: state, account, metadata.parents?.first ?? "root")
            let mimeType = metadata.mimeType ?? "application/octet-stream"
            let hasBytes = !mimeType.hasPrefix("application/vnd.google-apps.")
            if content != nil && !hasBytes {
                throw .badRequest("Content cannot be uploaded to a \(mimeType) item.", reason: "invalidContent")
            }
            let now = Date(timeIntervalSince1970: clock.now)
            state.sequence += 1
            var item = GoogleDriveItem(
                id: Self.newID(), account: account, name: metadata.name ?? "Untitled", mimeType: mimeType, parents: [parent.id],
                sequence: state.sequence, createdTime: now, modifiedTime: metadata.modifiedTime ?? now, trashed: metadata.trashed ?? false)
            if hasBytes {
                let staged: GoogleStagedContent
                if let content { staged = content } else { staged = try emptyContent() }
                item.content = try stored(staged)
            }
            Self.put(item, into: &state)
            Self.save(&state, item)
            if item.isFolder {
                state.stats.foldersCreatedPerName[item.name, default: 0] += 1
            } else if hasBytes {
                state.stats.filesCreatedPerName[item.name, default: 0] += 1
            }
            return item
        }
    }

    /// Stores `content` as a new revision of file `id` (same id), applying what `metadata` changes.
    func updateContent(account: String, id: String, metadata: GoogleDriveMetadata, content: GoogleStagedContent) throws(GoogleAPIError)
        -> GoogleDriveItem
    {
        try state.withLock { state throws(GoogleAPIError) -> GoogleDriveItem in
            guard var item = Self.item(in: state, account, id) else { throw .notFound(id) }
            guard item.content != nil else {
                throw .drive(.forbidden, reason: "fileNotUploadable", "Only files with binary content can be updated with media.")
            }
            let previous = item.content?.revision
            item.content = try stored(content)
            if let name = metadata.name { item.name = name }
            if let type = metadata.mimeType, !type.hasPrefix("application/vnd.google-apps.") { item.mimeType = type }
            item.modifiedTime = metadata.modifiedTime ?? Date(timeIntervalSince1970: clock.now)
            Self.put(item, into: &state)
            Self.save(&state, item)
            state.stats.revisionsWritten += 1
            if let previous { unlink(blobPath(previous)) }
            return item
        }
    }

    /// `files.update` without content: name, modification time, trash, and moves (`addParents`, `removeParents`).
    func updateMetadata(account: String, id: String, metadata: GoogleDriveMetadata, addParents: [String], removeParents: [String])
        throws(GoogleAPIError) -> GoogleDriveItem
    {
        try state.withLock { state throws(GoogleAPIError) -> GoogleDriveItem in
            guard var item = Self.item(in: state, account, id), !item.parents.isEmpty else { throw .notFound(id) }
            if let name = metadata.name { item.name = name }
            if let modified = metadata.modifiedTime { item.modifiedTime = modified }
            if let trashed = metadata.trashed { item.trashed = trashed }
            if metadata.parents != nil { throw .badRequest("parents cannot be set here: use addParents and removeParents.", reason: "fieldNotWritable") }
            var parents = item.parents.filter { !removeParents.contains($0) }
            for added in addParents { parents.append(try Self.folder(in: state, account, added).id) }
            guard parents.count == 1 else { throw .badRequest("A file takes exactly one parent.", reason: "invalid") }
            item.parents = parents
            Self.put(item, into: &state)
            Self.save(&state, item)
            return item
        }
    }

    /// Deletes an item for good, with everything below it.
    func delete(account: String, id: String) throws(GoogleAPIError) {
        try state.withLock { state throws(GoogleAPIError) in
            guard let item = Self.item(in: state, account, id), !item.parents.isEmpty else { throw .notFound(id) }
            var pending = [item.id]
            while let next = pending.popLast() {
                pending += state.children[next].map(Array.init) ?? []
                state.children.removeValue(forKey: next)
                guard let removed = state.items.removeValue(forKey: next) else { continue }
                for parent in removed.parents { state.children[parent]?.remove(next) }
                if let revision = removed.content?.revision { unlink(blobPath(revision)) }
                Self.append(&state, .object(["op": .string("delete"), "id": .string(next)]))
            }
            state.stats.deletes += 1
        }
    }

    /// `files.copy`: a new item with the same content (the blob is linked, not copied), named and placed as asked.
    func copy(account: String, id: String, metadata: GoogleDriveMetadata) throws(GoogleAPIError) -> GoogleDriveItem {
        try state.withLock { state throws(GoogleAPIError) -> GoogleDriveItem in
            guard let source = Self.item(in: state, account, id), !source.parents.isEmpty else { throw .notFound(id) }
            guard !source.isFolder else { throw .drive(.forbidden, reason: "cannotCopyFile", "Folders cannot be copied.") }
            let parent = try Self.folder(in: state, account, metadata.parents?.first ?? source.parents[0])
            let now = Date(timeIntervalSince1970: clock.now)
            state.sequence += 1
            var item = GoogleDriveItem(
                id: Self.newID(), account: account, name: metadata.name ?? "Copy of \(source.name)", mimeType: source.mimeType,
                parents: [parent.id], sequence: state.sequence, createdTime: now, modifiedTime: metadata.modifiedTime ?? source.modifiedTime)
            if var content = source.content {
                let revision = RandomToken.make(bytes: 24)
                guard link(blobPath(content.revision), blobPath(revision)) == 0 else {
                    throw .drive(.internalServerError, reason: "backendError", "The copy could not be stored.")
                }
                content.revision = revision
                item.content = content
            }
            Self.put(item, into: &state)
            Self.save(&state, item)
            state.stats.copies += 1
            state.stats.filesCreatedPerName[item.name, default: 0] += 1
            return item
        }
    }

    /// The folder `id` of `account`, or Drive's errors for an unknown id or one that is not a folder.
    static func folder(in state: State, _ account: String, _ id: String) throws(GoogleAPIError) -> GoogleDriveItem {
        guard let folder = item(in: state, account, id) else { throw .notFound(id) }
        guard folder.isFolder else { throw .badRequest("The specified parent is not a folder.", reason: "notAFolder") }
        return folder
    }

    /// Moves staged bytes into place as a new revision (called under the lock: a rename).
    private func stored(_ content: GoogleStagedContent) throws(GoogleAPIError) -> GoogleDriveItem.Content {
        let revision = RandomToken.make(bytes: 24)
        guard rename(content.path, blobPath(revision)) == 0 else {
            throw .drive(.internalServerError, reason: "backendError", "The upload could not be stored.")
        }
        return GoogleDriveItem.Content(revision: revision, size: content.size, md5: content.md5, sha256: content.sha256)
    }

    /// An empty file's content (a create without bytes).
    private func emptyContent() throws(GoogleAPIError) -> GoogleStagedContent {
        let path = temporaryPath()
        guard FileManager.default.createFile(atPath: path, contents: Data()) else {
            throw .drive(.internalServerError, reason: "backendError", "The file could not be stored.")
        }
        var digest = GoogleContentDigest()
        return digest.staged(path: path, size: 0)
    }
}
