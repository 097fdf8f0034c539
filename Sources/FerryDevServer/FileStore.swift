import FerryCore
import Crypto
import Foundation
import NIOCore
import Synchronization

/// All accounts' files and upload sessions.
///
/// File contents live on disk under `storageRoot/<account folder>/<path_display>`; metadata is
/// indexed in memory (rebuilt by scanning the folders at start-up). Every state change happens
/// under one lock, including the final `rename` of a finished upload into place, so commits
/// are atomic with respect to each other. Request bodies stream to disk outside the lock.
/// Seeded files are the exception: they are written when first read (see ``SeededContent``).
final class FileStore: Sendable {
    struct State: Sendable {
        var namespaces: [String: AccountNamespace] = [:]
        var sessions: [String: UploadSession] = [:]
        var lastRev: UInt64
        var batchJobs: [String: JSONValue] = [:]
        /// Every seeding call so far, in order (also in ``FileStore/seedManifestPath``).
        var seedBatches: [SeedBatch] = []
    }

    let storageRoot: String
    let sessionsDirectory: String
    let temporaryDirectory: String
    let seedManifestPath: String
    /// Identifies this server instance inside list_folder cursors.
    let epoch = RandomToken.make(bytes: 8)
    private let state: Mutex<State>

    init(storageRoot: String) throws {
        self.storageRoot = storageRoot
        self.sessionsDirectory = storageRoot + "/.devserver/sessions"
        self.temporaryDirectory = storageRoot + "/.devserver/tmp"
        self.seedManifestPath = storageRoot + "/.devserver/seeds.json"
        let fm = FileManager.default
        // Sessions do not survive a restart (as if they expired), so their data goes too.
        try? fm.removeItem(atPath: sessionsDirectory)
        try? fm.removeItem(atPath: temporaryDirectory)
        try fm.createDirectory(atPath: sessionsDirectory, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: temporaryDirectory, withIntermediateDirectories: true)
        // Revs only need to be unique and increasing; starting from the clock keeps them so across restarts.
        let start = UInt64(max(0, Date().timeIntervalSince1970) * 1000) << 8
        var initial = State(lastRev: start)
        if let data = fm.contents(atPath: seedManifestPath), let json = try? JSONValue.parse(utf8: Array(data)) {
            initial.seedBatches = (json.arrayValue ?? []).compactMap(SeedBatch.init(json:))
        }
        self.state = Mutex(initial)
    }

    // MARK: Accounts

    /// Creates the account's folder and index, scanning files already on disk.
    func ensureAccount(_ account: String, folder: String) throws {
        if state.withLock({ $0.namespaces[account] != nil }) { return }
        let root = storageRoot + "/" + folder
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        var namespace = AccountNamespace(root: root)
        let revs = scan(root: root, account: account, into: &namespace)
        let batches = state.withLock { state in
            guard state.namespaces[account] == nil else { return [SeedBatch]() }
            state.lastRev = max(state.lastRev, revs)
            state.namespaces[account] = namespace
            return state.seedBatches.filter { $0.account == account }
        }
        // Seeded files never written to disk come back from their batches; files that are on
        // disk (written, replaced or downloaded since) were found by the scan and win.
        for batch in batches {
            _ = try? apply(batch, replacingExisting: false)
        }
    }

    /// Rebuilds metadata for files left by a previous run; returns the last rev used.
    private func scan(root: String, account: String, into namespace: inout AccountNamespace) -> UInt64 {
        let fm = FileManager.default
        guard let enumerator = fm.enumerator(atPath: root) else { return 0 }
        var rev = state.withLock { $0.lastRev }
        while let relative = enumerator.nextObject() as? String {
            let full = root + "/" + relative
            let display = "/" + relative
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: full, isDirectory: &isDirectory) else { continue }
            var entry = FileEntry(kind: isDirectory.boolValue ? .folder : .file, pathDisplay: display,
                                  id: Self.makeID(account: account, lower: DropboxPath.lowerKey(display)),
                                  sequence: namespace.nextSequence())
            if !isDirectory.boolValue {
                guard let (hash, size) = try? DiskFile.contentHash(ofFileAt: full) else { continue }
                let modified = (try? fm.attributesOfItem(atPath: full)[.modificationDate] as? Date) ?? Date()
                rev += 1
                entry.size = size
                entry.contentHash = hash
                entry.rev = String(rev, radix: 16)
                entry.clientModified = DropboxTimestamp.format(modified)
                entry.serverModified = entry.clientModified
            }
            namespace.upsert(entry)
        }
        return rev
    }

    /// Stable id derived from the account and path, so ids survive restarts.
    static func makeID(account: String, lower: String) -> String {
        let digest = Array(SHA256.hash(data: Array((account + "\u{0}" + lower).utf8)).prefix(16))
        // Unpadded base64url of the first 16 bytes, written by hand: seeding calls this 20,000 times.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = Array("id:".utf8)
        var index = 0
        while index < digest.count {
            let chunk = digest[index..<min(index + 3, digest.count)]
            var bits = UInt32(0)
            for (offset, byte) in chunk.enumerated() { bits |= UInt32(byte) << UInt32(16 - 8 * offset) }
            for position in 0...chunk.count { out.append(alphabet[Int((bits >> UInt32(18 - 6 * position)) & 0x3F)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Reads

    /// Reads the namespace under the lock.
    func withNamespace<R: Sendable>(_ account: String, _ body: (inout AccountNamespace) throws(DropboxError) -> R) throws(DropboxError) -> R {
        try state.withLock { state throws(DropboxError) -> R in
            guard state.namespaces[account] != nil else {
                throw DropboxError.auth("invalid_access_token")
            }
            // Mutated in place: a copy would duplicate a 20,000-entry index on every call.
            return try body(&state.namespaces[account]!)
        }
    }

    /// Looks up a `ReadPath`: `/path`, `id:...` or `rev:...`.
    func lookup(_ account: String, readPath: String) -> FileEntry? {
        state.withLock { state -> FileEntry? in
            guard let namespace = state.namespaces[account] else { return nil }
            if readPath.hasPrefix("id:") { return namespace.entry(id: readPath) }
            if readPath.hasPrefix("rev:") {
                let rev = String(readPath.dropFirst(4))
                return namespace.entries.values.first { $0.isFile && $0.rev == rev }
            }
            return namespace.entry(lower: DropboxPath.lowerKey(readPath))
        }
    }

    /// Where the entry's bytes are, writing them first if the entry is a seeded file that
    /// is not on disk yet. `nil` if the account is gone or the bytes cannot be written.
    func diskPath(_ account: String, entry: FileEntry) -> String? {
        state.withLock { state -> String? in
            guard state.namespaces[account] != nil else { return nil }
            return materialize(&state.namespaces[account]!, lower: entry.pathLower)
        }
    }

    /// Writes a pending seeded file under the lock (one small file), so no commit can slip in
    /// between and be overwritten by seed content. Written beside and renamed into place, so a
    /// crash never leaves a half-written file that a restart would take for the real one.
    private func materialize(_ namespace: inout AccountNamespace, lower: String) -> String? {
        guard let current = namespace.entry(lower: lower) else { return nil }
        let path = namespace.diskPath(for: current.pathDisplay)
        guard let seeded = current.seeded else { return path }
        var buffer = ByteBufferAllocator().buffer(capacity: Int(current.size))
        seeded.fill(&buffer, size: Int(current.size))
        let temporary = temporaryDirectory + "/" + RandomToken.make(bytes: 16)
        do {
            let file = try DiskFile.openForWriting(temporary, truncate: true)
            try file.write(buffer, at: 0)
            if let modified = DropboxTimestamp.parse(current.clientModified) {
                try? file.setModificationTime(seconds: Int64(modified.timeIntervalSince1970))
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            return nil
        }
        guard rename(temporary, path) == 0 else {
            try? FileManager.default.removeItem(atPath: temporary)
            return nil
        }
        var written = current
        written.seeded = nil
        namespace.upsert(written)
        return path
    }

    // MARK: Commits

    /// Moves `source` (a finished upload on the same file system) to the commit path,
    /// applying Dropbox's write-mode, autorename and identical-content rules.
    /// `written` is false when identical content was already there and nothing changed.
    func commit(account: String, info: CommitInfo, source: String, size: Int64, contentHash: String) throws(WriteFailure) -> (entry: FileEntry, written: Bool) {
        try state.withLock { state throws(WriteFailure) -> (entry: FileEntry, written: Bool) in
            try Self.commitLocked(&state, account: account, info: info, source: source, size: size, contentHash: contentHash)
        }
    }

    /// Changes the first byte of a committed file and records the hash of what is now stored (the
    /// `corrupt_commit` fault). Returns the updated entry, or nil if the file is gone or empty.
    func corruptFirstByte(account: String, entry: FileEntry) -> FileEntry? {
        state.withLock { state -> FileEntry? in
            guard var namespace = state.namespaces.removeValue(forKey: account) else { return nil }
            defer { state.namespaces[account] = namespace }
            guard var current = namespace.entry(lower: DropboxPath.lowerKey(entry.pathDisplay)), current.rev == entry.rev,
                current.size > 0
            else { return nil }
            let path = namespace.diskPath(for: current.pathDisplay)
            guard let file = try? DiskFile.openForWriting(path), var first = try? DiskFile.openForReading(path).read(at: 0, count: 1),
                let byte = first.readInteger(as: UInt8.self)
            else { return nil }
            var flipped = ByteBuffer()
            flipped.writeInteger(byte ^ 0xFF)
            guard (try? file.write(flipped, at: 0)) != nil, let (hash, _) = try? DiskFile.contentHash(ofFileAt: path) else { return nil }
            current.contentHash = hash
            namespace.upsert(current)
            return current
        }
    }

    private enum Decision {
        case write(replacing: FileEntry?)
        case identical(FileEntry)
        case conflict(String)
    }

    private static func commitLocked(
        _ state: inout State, account: String, info: CommitInfo, source: String, size: Int64, contentHash: String
    ) throws(WriteFailure) -> (entry: FileEntry, written: Bool) {
        // Taken out of the dictionary while it changes, so the index is never copied.
        guard var namespace = state.namespaces.removeValue(forKey: account) else { throw .io("unknown account") }
        defer { state.namespaces[account] = namespace }
        guard !info.path.isRoot else { throw .malformedPath }
        let parentDisplay = try resolveParent(namespace, info.path.parent)

        var attempt = 0
        var targetDisplay: String
        var decision: Decision
        while true {
            let name = attempt == 0 ? info.path.name : renamed(info.path.name, attempt: attempt, mode: info.mode)
            targetDisplay = parentDisplay + "/" + name
            decision = decide(existing: namespace.entry(lower: DropboxPath.lowerKey(targetDisplay)), info: info, contentHash: contentHash)
            guard case .conflict(let kind) = decision else { break }
            guard info.autorename, attempt < 10_000 else { throw .conflict(kind) }
            attempt += 1
        }

        switch decision {
        case .identical(let existing):
            // Same bytes already there: nothing is written, no new rev (Dropbox's rule).
            try? FileManager.default.removeItem(atPath: source)
            return (existing, false)
        case .conflict(let kind):
            throw .conflict(kind)
        case .write(let replacing):
            try createFolders(&namespace, account: account, parentDisplay: parentDisplay)
            if let replacing { targetDisplay = replacing.pathDisplay }
            let destination = namespace.diskPath(for: targetDisplay)
            guard rename(source, destination) == 0 else { throw .io("rename failed: errno \(errno)") }
            let now = Date()
            let clientModified = info.clientModified ?? now
            // The file's mtime carries client_modified across restarts.
            try? FileManager.default.setAttributes([.modificationDate: clientModified], ofItemAtPath: destination)
            state.lastRev += 1
            let lower = DropboxPath.lowerKey(targetDisplay)
            let entry = FileEntry(
                kind: .file, pathDisplay: targetDisplay,
                id: replacing?.id ?? makeID(account: account, lower: lower),
                size: size, rev: String(state.lastRev, radix: 16),
                clientModified: DropboxTimestamp.format(clientModified),
                serverModified: DropboxTimestamp.format(now),
                contentHash: contentHash, sequence: namespace.nextSequence()
            )
            namespace.upsert(entry)
            return (entry, true)
        }
    }

    private static func decide(existing: FileEntry?, info: CommitInfo, contentHash: String) -> Decision {
        guard let existing else { return .write(replacing: nil) }
        guard existing.isFile else { return .conflict("folder") }
        if existing.contentHash == contentHash && !info.strictConflict { return .identical(existing) }
        switch info.mode {
        case .add: return .conflict("file")
        case .overwrite: return .write(replacing: existing)
        case .update(let rev): return rev == existing.rev ? .write(replacing: existing) : .conflict("file")
        }
    }

    /// `a.txt` → `a (1).txt`; update conflicts become `a (conflicted copy).txt` like Dropbox.
    private static func renamed(_ name: String, attempt: Int, mode: WriteMode) -> String {
        var base = name
        var ext = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            base = String(name[..<dot])
            ext = String(name[dot...])
        }
        if case .update = mode {
            return attempt == 1 ? "\(base) (conflicted copy)\(ext)" : "\(base) (conflicted copy \(attempt))\(ext)"
        }
        return "\(base) (\(attempt))\(ext)"
    }

    /// Display path of the parent folder, reusing the casing of folders that already exist.
    private static func resolveParent(_ namespace: AccountNamespace, _ parent: DropboxPath) throws(WriteFailure) -> String {
        var display = ""
        for component in parent.components {
            let candidate = display + "/" + component
            if let existing = namespace.entry(lower: DropboxPath.lowerKey(candidate)) {
                guard !existing.isFile else { throw .conflict("file_ancestor") }
                display = existing.pathDisplay
            } else {
                display = candidate
            }
        }
        return display
    }

    /// Adds index entries and directories for every missing folder along `parentDisplay`.
    private static func createFolders(_ namespace: inout AccountNamespace, account: String, parentDisplay: String) throws(WriteFailure) {
        guard !parentDisplay.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(atPath: namespace.diskPath(for: parentDisplay), withIntermediateDirectories: true)
        } catch {
            throw .io("mkdir failed")
        }
        var display = ""
        for component in parentDisplay.split(separator: "/") {
            display += "/" + component
            let lower = DropboxPath.lowerKey(display)
            if namespace.entry(lower: lower) == nil {
                namespace.upsert(FileEntry(kind: .folder, pathDisplay: display, id: makeID(account: account, lower: lower),
                                           sequence: namespace.nextSequence()))
            }
        }
    }

    /// `create_folder_v2`.
    func createFolder(account: String, path: DropboxPath, autorename: Bool) throws(WriteFailure) -> FileEntry {
        try state.withLock { state throws(WriteFailure) -> FileEntry in
            guard var namespace = state.namespaces.removeValue(forKey: account) else { throw .io("unknown account") }
            defer { state.namespaces[account] = namespace }
            guard !path.isRoot else { throw .malformedPath }
            let parentDisplay = try Self.resolveParent(namespace, path.parent)
            var attempt = 0
            var display = parentDisplay + "/" + path.name
            while let existing = namespace.entry(lower: DropboxPath.lowerKey(display)) {
                guard autorename, attempt < 10_000 else { throw .conflict(existing.isFile ? "file" : "folder") }
                attempt += 1
                display = parentDisplay + "/" + Self.renamed(path.name, attempt: attempt, mode: .add)
            }
            try Self.createFolders(&namespace, account: account, parentDisplay: display)
            guard let created = namespace.entry(lower: DropboxPath.lowerKey(display)) else { throw .io("folder not created") }
            return created
        }
    }

    /// `delete_v2`: removes a file or a folder with its contents; `nil` when nothing is at `path`.
    func delete(account: String, path: DropboxPath) throws(WriteFailure) -> FileEntry? {
        try state.withLock { state throws(WriteFailure) -> FileEntry? in
            guard var namespace = state.namespaces.removeValue(forKey: account) else { throw .io("unknown account") }
            defer { state.namespaces[account] = namespace }
            guard !path.isRoot else { throw .malformedPath }
            guard let removed = namespace.remove(lower: path.lower) else { return nil }
            try? FileManager.default.removeItem(atPath: namespace.diskPath(for: removed.pathDisplay))
            return removed
        }
    }

    // MARK: Upload sessions

    /// Creates an empty session owned by `account`.
    func startSession(account: String, concurrent: Bool = false) throws -> UploadSession {
        let id = "pid_upload_session:" + RandomToken.make(bytes: 24)
        let path = sessionsDirectory + "/" + RandomToken.make(bytes: 16)
        _ = try DiskFile.openForWriting(path, truncate: true)
        var session = UploadSession(id: id, account: account, filePath: path, createdAt: Date())
        session.concurrent = concurrent
        state.withLock { $0.sessions[id] = session }
        return session
    }

    /// Claims a session for one request that writes at `offset`; checks in Dropbox's order
    /// (unknown, wrong offset, closed) so a retried final append reports `incorrect_offset`.
    func beginWrite(account: String, sessionID: String, offset: Int64, forFinish: Bool) throws(SessionLookupFailure) -> UploadSession {
        try state.withLock { state throws(SessionLookupFailure) -> UploadSession in
            guard var session = state.sessions[sessionID], session.account == account else { throw .notFound }
            if session.finished { throw forFinish ? .notFound : .closed }
            // A concurrent session commits once closed and complete; it never takes sequential data.
            if forFinish && session.concurrent && session.finalHash == nil { throw .notClosed }
            if session.busy || session.offset != offset { throw .incorrectOffset(correct: session.offset) }
            if session.closed && !forFinish { throw .closed }
            session.busy = true
            state.sessions[sessionID] = session
            return session
        }
    }

    /// Checks an append to a concurrent session: known, not committed, before the end a closing append set, at a
    /// multiple of 4 MiB. Appends may overlap in time (each writes its own range of the file).
    func checkConcurrentWrite(account: String, sessionID: String, offset: Int64) throws(SessionLookupFailure) -> UploadSession {
        try state.withLock { state throws(SessionLookupFailure) -> UploadSession in
            guard let session = state.sessions[sessionID], session.account == account else { throw .notFound }
            // Chunks go in any order, so one may still arrive after the closing one, but none beyond the end.
            if session.finished || session.end.map({ offset >= $0 }) == true { throw .closed }
            guard offset % Self.concurrentChunkGranularity == 0 else { throw .concurrentSessionInvalidOffset }
            return session
        }
    }

    /// Records a range of a concurrent session; true when that completed the session (closed, every byte there),
    /// which the caller then hashes (outside the lock) and reports with ``completeConcurrentSession(_:hash:size:)``.
    func endConcurrentWrite(sessionID: String, offset: Int64, length: Int64, close: Bool) throws(SessionLookupFailure) -> Bool {
        try state.withLock { state throws(SessionLookupFailure) -> Bool in
            guard var session = state.sessions[sessionID], !session.finished else { throw .notFound }
            // An append that began before the closing one ended may still land; a second close may not.
            if close && session.end != nil { throw .closed }
            session.ranges[offset] = max(session.ranges[offset] ?? 0, length)
            if close { session.end = offset + length }
            state.sessions[sessionID] = session
            return session.isComplete
        }
    }

    /// A complete concurrent session's size and hash: from now on it commits like a closed sequential one.
    func completeConcurrentSession(_ sessionID: String, hash: String, size: Int64) {
        state.withLock { state in
            state.sessions[sessionID]?.finalHash = hash
            state.sessions[sessionID]?.offset = size
            state.sessions[sessionID]?.closed = true
        }
    }

    /// Whether the session was started with `session_type: concurrent`.
    func isConcurrentSession(_ sessionID: String) -> Bool {
        state.withLock { $0.sessions[sessionID]?.concurrent == true }
    }

    /// Concurrent sessions take data at multiples of 4 MiB.
    static let concurrentChunkGranularity: Int64 = 4 * 1024 * 1024

    /// Records a fully received chunk.
    func endWrite(sessionID: String, newOffset: Int64, hasher: ContentHasher, close: Bool) {
        state.withLock { state in
            guard var session = state.sessions[sessionID] else { return }
            session.offset = newOffset
            session.hasher = hasher
            session.closed = session.closed || close
            session.busy = false
            state.sessions[sessionID] = session
        }
    }

    /// Releases a session after a failed or refused chunk (its bytes were already cut off).
    func abortWrite(sessionID: String) {
        state.withLock { state in state.sessions[sessionID]?.busy = false }
    }

    /// Closes the session and commits its data; on a write error the session stays usable
    /// for another finish, as Dropbox documents.
    func finishSession(account: String, session: UploadSession, newOffset: Int64, hasher: ContentHasher, info: CommitInfo) throws(WriteFailure) -> (entry: FileEntry, written: Bool) {
        try state.withLock { state throws(WriteFailure) -> (entry: FileEntry, written: Bool) in
            guard var current = state.sessions[session.id] else { throw .io("session vanished") }
            current.offset = newOffset
            current.hasher = hasher
            current.closed = true
            current.busy = false
            defer { state.sessions[session.id] = current }
            let entry = try Self.commitLocked(&state, account: account, info: info, source: current.filePath,
                                              size: newOffset, contentHash: current.finalHash ?? hasher.finalize())
            current.finished = true
            return entry
        }
    }

    /// Commits a closed session as one entry of `finish_batch_v2`.
    func finishClosedSession(account: String, sessionID: String, offset: Int64, info: CommitInfo) throws(FinishFailure) -> (entry: FileEntry, written: Bool) {
        try state.withLock { state throws(FinishFailure) -> (entry: FileEntry, written: Bool) in
            guard var session = state.sessions[sessionID], session.account == account, !session.finished else {
                throw .lookup(.notFound)
            }
            if session.concurrent && session.finalHash == nil { throw .lookup(.notClosed) }
            if session.busy || session.offset != offset { throw .lookup(.incorrectOffset(correct: session.offset)) }
            guard session.closed else { throw .lookup(.notClosed) }
            do throws(WriteFailure) {
                let entry = try Self.commitLocked(&state, account: account, info: info, source: session.filePath,
                                                  size: session.offset, contentHash: session.finalHash ?? session.hasher.finalize())
                session.finished = true
                state.sessions[sessionID] = session
                return entry
            } catch {
                throw .write(error)
            }
        }
    }

    /// Remembers a `finish_batch` (v1) result for `finish_batch/check`.
    func storeBatchJob(_ result: JSONValue) -> String {
        let id = "dbjid:" + RandomToken.make(bytes: 24)
        state.withLock { $0.batchJobs[id] = result }
        return id
    }

    func batchJob(_ id: String) -> JSONValue? {
        state.withLock { $0.batchJobs[id] }
    }

    // MARK: Seeding

    /// Adds `count` files of `size` bytes to `folder` quickly (test and demo fixtures). Each
    /// file's content starts with its zero-padded number, so contents (and content hashes)
    /// differ between files for any size of at least five bytes. Only the index changes: the
    /// bytes are written when first needed (see ``SeededContent``), and the call is recorded
    /// so unwritten files survive a restart.
    func seed(account: String, folder: DropboxPath, count: Int, size: Int, prefix: String) throws -> [FileEntry] {
        let batch = SeedBatch(account: account, folder: folder.display, count: count, size: size, prefix: prefix)
        let created = try apply(batch, replacingExisting: true)
        let manifest = state.withLock { state -> JSONValue in
            state.seedBatches.append(batch)
            return .array(state.seedBatches.map(\.json))
        }
        try Data(manifest.jsonText.utf8).write(to: URL(fileURLWithPath: seedManifestPath), options: .atomic)
        return created
    }

    /// Puts a batch's files into the index. `replacingExisting` is false when replaying a
    /// batch at start-up, where anything already found on disk is newer than the seed.
    private func apply(_ batch: SeedBatch, replacingExisting: Bool) throws -> [FileEntry] {
        let folder = try DropboxPath.parse(batch.folder, allowRoot: true)
        let folderDisplay = try state.withLock { state throws -> String in
            guard var namespace = state.namespaces.removeValue(forKey: batch.account) else { throw WriteFailure.io("unknown account") }
            defer { state.namespaces[batch.account] = namespace }
            guard !folder.isRoot else { return "" }
            let display = try Self.resolveParent(namespace, folder)
            try Self.createFolders(&namespace, account: batch.account, parentDisplay: display)
            return display
        }
        // Content hashes are computed outside the lock: hashing 20,000 files takes a moment.
        var prepared: [(display: String, hash: String, seeded: SeededContent)] = []
        prepared.reserveCapacity(batch.count)
        var buffer = ByteBufferAllocator().buffer(capacity: batch.size)
        for index in 0..<batch.count {
            let (name, number) = batch.name(index)
            let display = folderDisplay + "/" + name
            let seeded = SeededContent(number: number, pathDisplay: display)
            seeded.fill(&buffer, size: batch.size)
            var hasher = ContentHasher()
            hasher.update(buffer)
            prepared.append((display, hasher.finalize(), seeded))
        }
        let stamp = DropboxTimestamp.format(Date())
        return state.withLock { state -> [FileEntry] in
            guard var namespace = state.namespaces.removeValue(forKey: batch.account) else { return [] }
            defer { state.namespaces[batch.account] = namespace }
            var created: [FileEntry] = []
            created.reserveCapacity(prepared.count)
            for (display, hash, seeded) in prepared {
                let lower = DropboxPath.lowerKey(display)
                let existing = namespace.entry(lower: lower)
                if let existing {
                    guard replacingExisting, existing.isFile else { continue }
                    // The old bytes must not outlive the seed (a restart would find them on disk).
                    if existing.seeded == nil { unlink(namespace.diskPath(for: existing.pathDisplay)) }
                }
                state.lastRev += 1
                created.append(FileEntry(kind: .file, pathDisplay: existing?.pathDisplay ?? display,
                                         id: existing?.id ?? Self.makeID(account: batch.account, lower: lower),
                                         size: Int64(batch.size), rev: String(state.lastRev, radix: 16), clientModified: stamp,
                                         serverModified: stamp, contentHash: hash, sequence: namespace.nextSequence(),
                                         seeded: seeded))
            }
            namespace.upsert(contentsOf: created)
            return created
        }
    }

    /// Invalidates every outstanding `list_folder` cursor of the account.
    func resetCursors(account: String) {
        state.withLock { $0.namespaces[account]?.cursorGeneration += 1 }
    }
}
