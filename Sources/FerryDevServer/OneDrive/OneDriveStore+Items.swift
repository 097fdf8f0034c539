import FerryCore
import Hummingbird

/// Items by path and id, children, writes with Graph's conflict behaviours, and upload sessions.
extension OneDriveStore {
    func item(_ account: String, id: String) -> OneDriveDevItem? {
        state.withLock { $0.drives[account]?.items[id] }
    }

    /// The item at `names` below the root (names compare without case, as OneDrive's do).
    func item(_ account: String, path names: [String]) -> OneDriveDevItem? {
        state.withLock { state in
            guard let drive = state.drives[account] else { return nil }
            return Self.resolve(drive, names)
        }
    }

    static func resolve(_ drive: Drive, _ names: [String]) -> OneDriveDevItem? {
        var current = drive.items[drive.rootID]
        for name in names {
            guard let folder = current, folder.isFolder else { return nil }
            current = child(drive, of: folder.id, named: name)
        }
        return current
    }

    static func child(_ drive: Drive, of parentID: String, named name: String) -> OneDriveDevItem? {
        drive.items.values.first { $0.parentID == parentID && $0.name.lowercased() == name.lowercased() }
    }

    /// The children of a folder, by name.
    func children(_ account: String, of id: String) -> [OneDriveDevItem]? {
        state.withLock { state in
            guard let drive = state.drives[account], drive.items[id]?.isFolder == true else { return nil }
            return drive.items.values.filter { $0.parentID == id }.sorted { $0.name < $1.name }
        }
    }

    /// `parentReference.path` of an item: `/drive/root:` for the root's children, `/drive/root:/a/b` below.
    func parentPath(_ account: String, _ item: OneDriveDevItem) -> String? {
        guard let parentID = item.parentID, let names = path(account, id: parentID) else { return nil }
        return "/drive/root:" + (names.isEmpty ? "" : "/" + names.joined(separator: "/"))
    }

    /// The names from the root down to `id`.
    func path(_ account: String, id: String) -> [String]? {
        state.withLock { state in
            guard let drive = state.drives[account] else { return nil }
            var names = [String]()
            var current = drive.items[id]
            while let step = current, let parent = step.parentID, names.count < 1000 {
                names.append(step.name)
                current = drive.items[parent]
            }
            return current == nil ? nil : names.reversed()
        }
    }

    /// Stores `bytes` at `names` (folders on the way made as needed) as `conflict` says; answers the item and
    /// whether it is new.
    func write(
        _ account: String, path names: [String], bytes: [UInt8], conflict: String, clientModified: String?
    ) throws(OneDriveGraphError) -> (OneDriveDevItem, created: Bool) {
        let time = now
        return try state.withLock { state throws(OneDriveGraphError) in
            guard var drive = state.drives[account], let name = names.last else { throw .bad("No file name.") }
            var parentID = drive.rootID
            for folder in names.dropLast() {
                if let existing = Self.child(drive, of: parentID, named: folder) {
                    guard existing.isFolder else {
                        throw OneDriveGraphError(status: .conflict, code: "nameAlreadyExists", message: "A file is where a folder should be.")
                    }
                    parentID = existing.id
                } else {
                    let id = Self.newID(&state)
                    drive.items[id] = OneDriveDevItem(id: id, name: folder, parentID: parentID, isFolder: true, created: time, modified: time)
                    parentID = id
                }
            }
            var target = name
            if let existing = Self.child(drive, of: parentID, named: name) {
                switch conflict {
                case "replace" where !existing.isFolder:
                    var item = existing
                    item.store(bytes, at: time, clientModified: clientModified)
                    drive.items[item.id] = item
                    state.drives[account] = drive
                    state.stats.replaced += 1
                    return (item, false)
                case "rename":
                    target = Self.freeName(drive, parentID: parentID, name: name)
                default:
                    state.drives[account] = drive
                    throw OneDriveGraphError(status: .conflict, code: "nameAlreadyExists", message: "The specified item name already exists.")
                }
            }
            let id = Self.newID(&state)
            var item = OneDriveDevItem(id: id, name: target, parentID: parentID, isFolder: false, created: time, modified: time)
            item.store(bytes, at: time, clientModified: clientModified)
            drive.items[id] = item
            state.drives[account] = drive
            state.stats.filesCreatedPerName[target, default: 0] += 1
            return (item, true)
        }
    }

    /// `name 1.ext`, `name 2.ext`… : the first name free in the folder.
    static func freeName(_ drive: Drive, parentID: String, name: String) -> String {
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let (stem, ext) = dot.map { (String(name[..<$0]), String(name[$0...])) } ?? (name, "")
        var number = 1
        while child(drive, of: parentID, named: "\(stem) \(number)\(ext)") != nil { number += 1 }
        return "\(stem) \(number)\(ext)"
    }

    /// Removes an item and everything below it (Graph moves them to the recycle bin).
    func delete(_ account: String, id: String) {
        state.withLock { state in
            guard var drive = state.drives[account] else { return }
            var doomed = [id]
            var index = 0
            while index < doomed.count {
                let parent = doomed[index]
                doomed += drive.items.values.filter { $0.parentID == parent }.map(\.id)
                index += 1
            }
            for gone in doomed { drive.items[gone] = nil }
            state.drives[account] = drive
            state.stats.deleted += doomed.count
        }
    }

    // MARK: Upload sessions

    enum RangeResult {
        case incomplete(next: Int64)
        case complete(OneDriveDevItem, created: Bool)
    }

    func createSession(account: String, path: [String], conflict: String, clientModified: String?) -> OneDriveDevSession {
        state.withLock { state in
            let session = OneDriveDevSession(
                id: RandomToken.make(bytes: 24), account: account, path: path, conflict: conflict, clientModified: clientModified,
                expiresAt: clock.now + state.sessionLifetime)
            state.sessions[session.id] = session
            state.stats.sessionsCreated += 1
            return session
        }
    }

    /// A live session; `nil` when it expired, completed or never was.
    func session(_ id: String) -> OneDriveDevSession? {
        state.withLock { state in
            guard let session = state.sessions[id] else { return nil }
            guard session.expiresAt > clock.now else {
                state.sessions[id] = nil
                return nil
            }
            return session
        }
    }

    /// Appends a range that starts where the session's bytes end; the last one stores the file.
    func receive(_ id: String, start: Int64, total: Int64, bytes: [UInt8]) throws(OneDriveGraphError) -> RangeResult {
        let session: OneDriveDevSession = try state.withLock { state throws(OneDriveGraphError) in
            guard var session = state.sessions[id], session.expiresAt > clock.now else {
                throw OneDriveGraphError(status: .notFound, code: "itemNotFound", message: "The upload session was not found.")
            }
            state.stats.rangeStartsPerSession[id, default: []].append(start)
            if let known = session.total, known != total {
                throw OneDriveGraphError.bad("The Content-Range total differs from the session's.", code: "invalidRange")
            }
            guard start == Int64(session.received.count) else {
                throw OneDriveGraphError(
                    status: .rangeNotSatisfiable, code: "invalidRange", message: "The uploaded fragment overlaps or skips expected ranges.")
            }
            session.total = total
            session.received += bytes
            state.stats.bytesReceived += Int64(bytes.count)
            state.sessions[id] = session
            return session
        }
        guard Int64(session.received.count) == total else { return .incomplete(next: Int64(session.received.count)) }
        let (item, created) = try write(
            session.account, path: session.path, bytes: session.received, conflict: session.conflict, clientModified: session.clientModified)
        state.withLock { state in
            state.sessions[id] = nil
            state.stats.sessionsCompleted += 1
        }
        return .complete(item, created: created)
    }

    func cancelSession(_ id: String) -> Bool {
        state.withLock { $0.sessions.removeValue(forKey: id) != nil }
    }

    @discardableResult
    func expireSessions(account: String?) -> Int {
        state.withLock { state in
            let ids = state.sessions.values.filter { account == nil || $0.account == account }.map(\.id)
            for id in ids { state.sessions[id]?.expiresAt = 0 }
            return ids.count
        }
    }

    /// Every item of the account but the root, with its `path` (`/Backup/a.jpg`).
    func itemsWithPaths(_ account: String) -> [JSONValue] {
        let items = state.withLock { $0.drives[account].map { Array($0.items.values) } ?? [] }
        return items.filter { $0.parentID != nil }.compactMap { item in
            guard case .object(var members) = item.json(parentPath: parentPath(account, item)), let names = path(account, id: item.id) else { return nil }
            members["path"] = .string("/" + names.joined(separator: "/"))
            return .object(members)
        }.sorted { ($0["path"]?.stringValue ?? "") < ($1["path"]?.stringValue ?? "") }
    }
}
