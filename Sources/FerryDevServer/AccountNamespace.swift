import Foundation

/// The in-memory index of one account's files and folders.
///
/// Keys are `path_lower` strings kept in an array sorted by UTF-8 bytes, so a folder's
/// descendants are one contiguous range (parents sort before their children) and paging
/// through 20,000 entries is a binary search plus a scan. Single new keys are inserted in
/// place; bulk inserts (seeding) drop the order, which the next listing rebuilds once.
struct AccountNamespace: Sendable {
    /// Absolute directory holding this account's files.
    let root: String
    private(set) var entries: [String: FileEntry] = [:]
    private var idIndex: [String: String] = [:]
    private var sortedKeysCache: [String]?
    /// Last change sequence number handed out.
    private(set) var sequence: UInt64 = 0
    /// Bumped by `/__dev/reset-cursors` to invalidate outstanding cursors (`reset` errors).
    var cursorGeneration: Int = 0

    init(root: String) {
        self.root = root
    }

    func entry(lower: String) -> FileEntry? { entries[lower] }

    func entry(id: String) -> FileEntry? { idIndex[id].flatMap { entries[$0] } }

    /// Where an entry lives on disk.
    func diskPath(for pathDisplay: String) -> String { root + pathDisplay }

    mutating func nextSequence() -> UInt64 {
        sequence += 1
        return sequence
    }

    /// Inserts or replaces an entry (same `path_lower`).
    mutating func upsert(_ entry: FileEntry) {
        let key = entry.pathLower
        if entries.updateValue(entry, forKey: key) == nil, sortedKeysCache != nil {
            let index = Self.bound(sortedKeysCache ?? [], key, strictly: false)
            sortedKeysCache?.insert(key, at: index)
        }
        idIndex[entry.id] = key
    }

    /// Removes the entry at `lower` and everything below it (a folder's contents); returns the entry removed.
    /// Outstanding cursors see a `reset` afterwards: the stand-in lists no `deleted` entries.
    mutating func remove(lower: String) -> FileEntry? {
        guard let removed = entries.removeValue(forKey: lower) else { return nil }
        idIndex[removed.id] = nil
        let prefix = lower + "/"
        for key in entries.keys where key.hasPrefix(prefix) {
            if let child = entries.removeValue(forKey: key) { idIndex[child.id] = nil }
        }
        sortedKeysCache = nil
        cursorGeneration += 1
        return removed
    }

    /// Inserts or replaces many entries; re-sorting once beats thousands of in-place inserts.
    mutating func upsert(contentsOf batch: [FileEntry]) {
        if batch.count > 64 { sortedKeysCache = nil }
        for entry in batch { upsert(entry) }
    }

    /// Byte-wise order of the UTF-8 forms (memcmp: sorting 20,000 keys stays cheap in debug builds).
    private static func utf8Less(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { left in
            b.withUTF8 { right in
                let common = min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let order = memcmp(l, r, common)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
    }

    private mutating func sortedKeys() -> [String] {
        if let cached = sortedKeysCache { return cached }
        let keys = entries.keys.sorted(by: Self.utf8Less)
        sortedKeysCache = keys
        return keys
    }

    /// First index whose key is `>= key` (or `> key` with `strictly`).
    private static func bound(_ keys: [String], _ key: String, strictly: Bool) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            let goRight = strictly ? !utf8Less(key, keys[mid]) : utf8Less(keys[mid], key)
            if goRight { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private static func isListed(_ key: String, prefix: String, recursive: Bool) -> Bool {
        recursive || !key.utf8.dropFirst(prefix.utf8.count).contains(UInt8(ascii: "/"))
    }

    /// One page of a listing in key order, resuming after `lastKey`.
    /// A recursive listing of a folder starts with the folder itself, as Dropbox's does.
    mutating func listPage(folderLower: String, recursive: Bool, after lastKey: String?, limit: Int)
        -> (entries: [FileEntry], lastKey: String?, hasMore: Bool)
    {
        let keys = sortedKeys()
        let prefix = folderLower + "/"
        var page: [FileEntry] = []
        var last = lastKey
        if lastKey == nil, recursive, !folderLower.isEmpty, let folder = entries[folderLower] {
            page.append(folder)
            last = folderLower
        }
        var index = Self.bound(keys, prefix, strictly: false)
        if let lastKey { index = max(index, Self.bound(keys, lastKey, strictly: true)) }
        while index < keys.count, keys[index].utf8.starts(with: prefix.utf8) {
            let key = keys[index]
            if !recursive, let slash = key.utf8.dropFirst(prefix.utf8.count).firstIndex(of: UInt8(ascii: "/")) {
                // A grandchild: skip the child's whole subtree, the keys in [child + "/", child + "0").
                let child = String(decoding: key.utf8[..<slash], as: UTF8.self)
                index = Self.bound(keys, child + "0", strictly: false)
                continue
            }
            index += 1
            guard let entry = entries[key] else { continue }
            if page.count == limit {
                return (page, last, true)
            }
            page.append(entry)
            last = key
        }
        return (page, last, false)
    }

    /// Entries under a folder changed after `sequence`, oldest change first (the change feed a
    /// cursor follows once the initial listing is complete).
    func changes(folderLower: String, recursive: Bool, since sequence: UInt64, limit: Int)
        -> (entries: [FileEntry], hasMore: Bool)
    {
        let prefix = folderLower + "/"
        var changed = entries.values.filter { entry in
            entry.sequence > sequence
                && (entry.pathLower.utf8.starts(with: prefix.utf8) || (recursive && entry.pathLower == folderLower))
                && Self.isListed(entry.pathLower, prefix: prefix, recursive: recursive)
        }
        changed.sort { $0.sequence < $1.sequence }
        if changed.count > limit { return (Array(changed.prefix(limit)), true) }
        return (changed, false)
    }

    /// Total bytes stored (for `get_space_usage`).
    var usedBytes: Int64 { entries.values.reduce(0) { $0 + $1.size } }
}
