/// The listing (`ferry ls`, `lsf`, `size`, `check`) of a tree on a provider that lists one folder at a time: the
/// folders are walked breadth first from the top one, each folder's pages in turn, each page's entries handed on
/// as they come, within the listing's depth and the bound on folders waiting to be listed.
enum BreadthFirstListing {
    /// Walks the tree below the folder `top` (named `remote` in errors): `listPage` lists one page of a folder (its
    /// id, the continuation after the previous page, `nil` first) and answers the items and the next continuation;
    /// items that are not `usable` are skipped; `entry` makes the entry of an item at its path below the top.
    /// Answers how many items were skipped.
    static func walk<Item: ListedItem>(
        top: String, remote: String, options: RemoteListOptions,
        listPage: (_ folderID: String, _ continuation: String?) async throws -> (items: [Item], next: String?),
        usable: (Item) -> Bool, entry: (Item, _ relative: String) -> RemoteEntry,
        page: ([RemoteEntry]) async throws -> Void
    ) async throws -> Int {
        var waiting = [(id: top, prefix: "")]
        var skipped = 0
        while !waiting.isEmpty {
            let folder = waiting.removeFirst()
            var next: String?
            repeat {
                let listed = try await listPage(folder.id, next)
                var entries = [RemoteEntry]()
                for item in listed.items {
                    guard usable(item) else {
                        skipped += 1
                        continue
                    }
                    let relative = folder.prefix + item.name
                    let depth = folder.prefix.split(separator: "/").count + 1
                    if item.isFolder && options.recursive && depth >= options.maxDepth { throw RemoteListingError.tooDeep(options) }
                    if item.isFolder, options.descends(into: relative, depth: depth) {
                        waiting.append((item.id, relative + "/"))
                    }
                    entries.append(entry(item, relative))
                }
                guard waiting.count <= maxFolders else {
                    throw RemoteListingError(
                        .tooManyEntries, "\(remote) holds more than \(maxFolders) folders waiting to be listed",
                        fix: "list its subfolders one by one")
                }
                try await page(entries)
                next = listed.next
            } while next != nil
        }
        return skipped
    }

    /// Folders waiting at most, as for a folder copy: a tree wider than this is listed by its subfolders.
    static var maxFolders: Int { 20_000 }
}
