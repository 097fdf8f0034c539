import FerryGoogleDrive
import FerryProviders
import Foundation

/// Turns paths into Drive ids. Drive addresses files by id and allows many items of one name in a folder, so a path
/// names the oldest item of each name (as listed). Folders are cached per process; creating one goes through the
/// fleet-wide folder ledger, so two workers writing one new tree create each folder once.
struct GoogleDrivePathResolver: Sendable {
    let caller: GoogleDriveCaller
    let environment: ProviderEnvironment
    let cache: GoogleDriveFolderCache
    let account: String

    /// The id of the folder at `components` (from the top of the Drive), created with its parents when missing and
    /// `create` is set; `nil` when missing and not created.
    func folderID(_ components: [String], create: Bool) async throws -> String? {
        var parentID = "root"
        var path = "/"
        for name in components {
            path += name + "/"
            if let cached = cache.id(account: account, path: path) {
                parentID = cached
                continue
            }
            let parent = parentID
            let id: String?
            if create {
                id = try await environment.folders.folderID(
                    scope: "gdrive:" + account, path: path,
                    find: { try await findFolder(name, in: parent) },
                    create: { [cache, account, path] in
                        let id = try await createFolder(name, in: parent)
                        cache.markCreated(account: account, path: path)
                        return id
                    })
            } else {
                id = try await findFolder(name, in: parent)
            }
            guard let id else { return nil }
            cache.remember(account: account, path: path, id: id)
            parentID = id
        }
        return parentID
    }

    /// Forgets the recorded ids of the folders at `components` and above (one of them was deleted in Drive), in this
    /// process's cache and in the fleet's ledger.
    func forgetFolders(_ components: [String]) async throws {
        var path = "/"
        for name in components {
            path += name + "/"
            if let id = cache.id(account: account, path: path) {
                try await environment.folders.forget(scope: "gdrive:" + account, path: path, id: id)
            }
        }
        if let first = components.first { cache.forget(account: account, below: "/" + first + "/") }
    }

    /// The item at `path` (`/a/b.jpg`, or `/a/b/` for a folder); `nil` when nothing is there.
    func item(at path: String) async throws -> GoogleDriveFile? {
        let components = GoogleDriveLocation.components(of: path)
        guard let last = components.last else {
            return try await caller.job("looking up the top folder") { client, token in try await client.getFile(id: "root", accessToken: token) }
        }
        guard let parentID = try await folderID(Array(components.dropLast()), create: false) else { return nil }
        let found = try await caller.job("looking up \(path)") { client, token in
            try await client.findChildren(named: last, in: parentID, foldersOnly: path.hasSuffix("/"), limit: 1, accessToken: token)
        }
        return found.first
    }

    /// Files (not folders) named `name` in a folder, oldest first.
    func files(named name: String, in parentID: String) async throws -> [GoogleDriveFile] {
        try await caller.job("looking for \(name)") { client, token in
            try await client.findChildren(named: name, in: parentID, limit: 10, accessToken: token)
        }.filter { !$0.isFolder }
    }

    private func findFolder(_ name: String, in parentID: String) async throws -> String? {
        try await caller.job("looking for the folder \(name)") { client, token in
            try await client.findChildren(named: name, in: parentID, foldersOnly: true, limit: 1, accessToken: token).first?.id
        }
    }

    private func createFolder(_ name: String, in parentID: String) async throws -> String {
        // Not sent twice at once (Drive would make a second folder of the name): a failure ends the attempt, and the
        // next one, still holding the claim, looks for the folder first.
        var once = caller
        once.transientRetries = 0
        return try await once.job("creating the folder \(name)") { client, token in
            try await client.createFolder(name: name, parentID: parentID, accessToken: token).id
        }
    }
}
