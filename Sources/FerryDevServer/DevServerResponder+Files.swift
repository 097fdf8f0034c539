import FerryCore
import Hummingbird

/// RPC routes over the file index: account info, metadata and listing.
extension DevServerResponder {
    func currentAccount(_ account: Account) -> JSONValue {
        .object([
            "account_id": .string(account.accountID),
            "name": .object([
                "given_name": .string(account.name),
                "surname": .string("Dev"),
                "familiar_name": .string(account.name),
                "display_name": .string(account.name + " Dev"),
                "abbreviated_name": .string(String(account.name.prefix(1)).uppercased() + "D"),
            ]),
            "email": .string(account.email),
            "email_verified": .bool(true),
            "disabled": .bool(false),
            "country": .string("US"),
            "locale": .string("en"),
            "referral_link": .string("https://db.tt/ferrydev"),
            "is_paired": .bool(false),
            "account_type": .tag("basic"),
            "root_info": .object([
                ".tag": .string("user"),
                "root_namespace_id": .string("1"),
                "home_namespace_id": .string("1"),
            ]),
        ])
    }

    func spaceUsage(_ account: Account) throws(DropboxError) -> JSONValue {
        let used = try backend.files.withNamespace(account.name) { namespace throws(DropboxError) in namespace.usedBytes }
        return .object([
            "used": .int(used),
            "allocation": .object([".tag": .string("individual"), "allocated": .int(2 << 40)]),
        ])
    }

    /// `LookupError` under the route's `path` member.
    func lookupError(_ tag: String) -> DropboxError {
        .routeError(summary: "path/\(tag)", .object([".tag": .string("path"), "path": .tag(tag)]))
    }

    /// Resolves a ReadPath (`/...`, `id:...`, `rev:...`) to an entry.
    func resolveReadPath(_ account: Account, _ text: String, route: String) throws(DropboxError) -> FileEntry {
        if text.hasPrefix("id:") || text.hasPrefix("rev:") {
            guard let entry = backend.files.lookup(account.name, readPath: text) else { throw lookupError("not_found") }
            return entry
        }
        if text.hasPrefix("ns:") { throw lookupError("not_found") }
        let path: DropboxPath
        do throws(DropboxPath.Problem) {
            path = try DropboxPath.parse(text)
        } catch {
            if error == .patternMismatch {
                throw .badRequest(route: route, "path: '\(text)' did not match pattern '(/(.|[\\r\\n])*|id:.*)|(rev:[0-9a-f]{9,})|(ns:[0-9]+(/.*)?)'")
            }
            throw lookupError("malformed_path")
        }
        guard let entry = backend.files.lookup(account.name, readPath: path.display) else { throw lookupError("not_found") }
        return entry
    }

    func getMetadata(_ account: Account, _ argument: JSONValue) throws(DropboxError) -> JSONValue {
        let route = Endpoint.getMetadata.rawValue
        let arg = try requireObject(argument, route: route, known: ArgumentFields.getMetadata)
        let path = try requiredString(arg, "path", route: route)
        return try resolveReadPath(account, path, route: route).metadata(tagged: true)
    }

    /// Listing a shared link's folder is real Dropbox API the dev server does not have: a 400 says so plainly.
    private func refuseSharedLink(_ arg: JSONValue, route: String) throws(DropboxError) {
        if let link = arg["shared_link"], !link.isNull {
            throw .badRequest(route: route, "shared_link: shared links are not supported by the Ferry dev server")
        }
    }

    /// Validates a list_folder path and returns the folder's `path_lower` ("" for the root).
    private func listedFolder(_ account: Account, _ text: String, route: String) throws(DropboxError) -> String {
        if text == "/" {
            throw .badRequest(route: route, "request body: path: Specify the root folder as an empty string rather than as \"/\".")
        }
        if text.isEmpty { return "" }
        let entry = try resolveReadPath(account, text, route: route)
        guard !entry.isFile else { throw lookupError("not_folder") }
        return entry.pathLower
    }

    func listFolder(_ account: Account, _ argument: JSONValue) throws(DropboxError) -> JSONValue {
        let route = Endpoint.listFolder.rawValue
        let arg = try requireObject(argument, route: route, known: ArgumentFields.listFolder)
        try refuseSharedLink(arg, route: route)
        let path = try requiredString(arg, "path", route: route)
        let recursive = try optionalBool(arg, "recursive", route: route)
        var limit = backend.configuration.defaultListFolderLimit
        if let member = arg["limit"], !member.isNull {
            guard let value = member.intValue, (1...2000).contains(value) else {
                throw .badRequest(route: route, "request body: limit: must be an integer between 1 and 2000")
            }
            limit = Int(value)
        }
        let folder = try listedFolder(account, path, route: route)
        let epoch = backend.files.epoch
        return try backend.files.withNamespace(account.name) { namespace throws(DropboxError) -> JSONValue in
            let cursor = ListFolderCursor(account: account.name, folderLower: folder, recursive: recursive, limit: limit,
                                          lastKey: nil, sequence: namespace.sequence, generation: namespace.cursorGeneration, epoch: epoch)
            return Self.page(&namespace, cursor: cursor)
        }
    }

    /// Next page of an initial listing, or the changes since the cursor once complete.
    private static func page(_ namespace: inout AccountNamespace, cursor: ListFolderCursor) -> JSONValue {
        var next = cursor
        let entries: [FileEntry]
        let hasMore: Bool
        if !cursor.isChangeFeed {
            let page = namespace.listPage(folderLower: cursor.folderLower, recursive: cursor.recursive, after: cursor.lastKey, limit: cursor.limit)
            entries = page.entries
            hasMore = page.hasMore
            // Once the listing is complete the cursor follows changes from its starting point.
            next.lastKey = hasMore ? page.lastKey : nil
            next.isChangeFeed = !hasMore
        } else {
            let changes = namespace.changes(folderLower: cursor.folderLower, recursive: cursor.recursive, since: cursor.sequence, limit: cursor.limit)
            entries = changes.entries
            hasMore = changes.hasMore
            next.sequence = hasMore ? (entries.last?.sequence ?? cursor.sequence) : namespace.sequence
        }
        return .object([
            "entries": .array(entries.map { $0.metadata(tagged: true) }),
            "cursor": .string(next.encoded()),
            "has_more": .bool(hasMore),
        ])
    }

    func listFolderContinue(_ account: Account, _ argument: JSONValue) throws(DropboxError) -> JSONValue {
        let route = Endpoint.listFolderContinue.rawValue
        let arg = try requireObject(argument, route: route, known: ArgumentFields.listFolderContinue)
        let text = try requiredString(arg, "cursor", route: route)
        let reset = DropboxError.routeError(summary: "reset", .tag("reset"))
        // Text that is no cursor of this account is a bad request (400), as on Dropbox; only a real cursor that
        // expired (the server restarted, or the account's cursors were reset) is `reset`, which clients restart on.
        guard let cursor = ListFolderCursor.decode(text), cursor.account == account.name else {
            throw .badRequest(route: route, "Invalid \"cursor\" parameter: not a cursor returned by files/list_folder for this account")
        }
        guard cursor.epoch == backend.files.epoch else { throw reset }
        return try backend.files.withNamespace(account.name) { namespace throws(DropboxError) -> JSONValue in
            guard cursor.generation == namespace.cursorGeneration else { throw reset }
            if !cursor.folderLower.isEmpty, namespace.entry(lower: cursor.folderLower)?.isFile != false {
                throw lookupError("not_found")
            }
            return Self.page(&namespace, cursor: cursor)
        }
    }

    func listFolderLatestCursor(_ account: Account, _ argument: JSONValue) throws(DropboxError) -> JSONValue {
        let route = Endpoint.listFolderGetLatestCursor.rawValue
        let arg = try requireObject(argument, route: route, known: ArgumentFields.listFolder)
        try refuseSharedLink(arg, route: route)
        let path = try requiredString(arg, "path", route: route)
        let recursive = try optionalBool(arg, "recursive", route: route)
        let folder = try listedFolder(account, path, route: route)
        let epoch = backend.files.epoch
        return try backend.files.withNamespace(account.name) { namespace throws(DropboxError) -> JSONValue in
            var cursor = ListFolderCursor(account: account.name, folderLower: folder, recursive: recursive,
                                          limit: backend.configuration.defaultListFolderLimit, lastKey: nil,
                                          sequence: namespace.sequence, generation: namespace.cursorGeneration, epoch: epoch)
            cursor.isChangeFeed = true
            return .object(["cursor": .string(cursor.encoded())])
        }
    }

    func createFolder(_ account: Account, _ argument: JSONValue) throws(DropboxError) -> JSONValue {
        let route = Endpoint.createFolder.rawValue
        let arg = try requireObject(argument, route: route, known: ArgumentFields.createFolder)
        let text = try requiredString(arg, "path", route: route)
        let autorename = try optionalBool(arg, "autorename", route: route)
        let failure: WriteFailure
        do throws(DropboxPath.Problem) {
            let path = try DropboxPath.parse(text, forWriting: true)
            do throws(WriteFailure) {
                let folder = try backend.files.createFolder(account: account.name, path: path, autorename: autorename)
                return .object(["metadata": folder.metadata(tagged: false)])
            } catch {
                failure = error
            }
        } catch {
            if error == .patternMismatch { throw .badRequest(route: route, "path: '\(text)' did not match pattern '(/(.|[\\r\\n])*)|(ns:[0-9]+(/.*)?)'") }
            failure = WriteFailure(error)
        }
        throw .routeError(summary: "path/" + failure.summary, .object([".tag": .string("path"), "path": failure.json]))
    }

    /// `files/delete_v2`: `{metadata}` of what was deleted; a missing path is `path_lookup/not_found`, a
    /// `parent_rev` that is not the file's current revision `path_lookup/not_found` too (as Dropbox answers).
    func delete(_ account: Account, _ argument: JSONValue) throws(DropboxError) -> JSONValue {
        let route = Endpoint.delete.rawValue
        let arg = try requireObject(argument, route: route, known: ArgumentFields.delete)
        let text = try requiredString(arg, "path", route: route)
        let parentRev: String?
        if let member = arg["parent_rev"], !member.isNull {
            guard let text = member.stringValue else { throw .badRequest(route: route, "parent_rev: expected string") }
            parentRev = text
        } else {
            parentRev = nil
        }
        let notFound = DropboxError.routeError(
            summary: "path_lookup/not_found/", .object([".tag": .string("path_lookup"), "path_lookup": .object([".tag": .string("not_found")])]))
        let path: DropboxPath
        do throws(DropboxPath.Problem) {
            path = try DropboxPath.parse(text, forWriting: true)
        } catch {
            if error == .patternMismatch { throw .badRequest(route: route, "path: '\(text)' did not match pattern '(/(.|[\\r\\n])*)|(ns:[0-9]+(/.*)?)'") }
            throw notFound
        }
        if let parentRev, backend.files.lookup(account.name, readPath: path.display)?.rev != parentRev { throw notFound }
        let removed: FileEntry?
        do throws(WriteFailure) {
            removed = try backend.files.delete(account: account.name, path: path)
        } catch {
            throw .routeError(summary: "path_write/" + error.summary, .object([".tag": .string("path_write"), "path_write": error.json]))
        }
        guard let removed else { throw notFound }
        return .object(["metadata": removed.metadata(tagged: true)])
    }
}
