import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Makes files durable in groups: every caller waiting while a flush runs is served by the next one, a single
/// `syncfs(2)` per filesystem for all of them (a group commit, as PostgreSQL does for its WAL).
///
/// A small file's copy is dominated by its two `fsync`s (the data before the rename, the folder after it), each a
/// disk round trip; 64 concurrent copies of 64 KiB files spent their time queueing for them. `syncfs` flushes the
/// filesystem's dirty data and metadata, so one call covers every file and folder written before it started (and
/// whatever else is dirty there: it costs what `sync` after `cp -r` costs). A caller's own writes always precede
/// the flush that answers it: one that arrives while a flush runs waits for the next. Where `syncfs` is not
/// available (ENOSYS) each file is `fsync`ed on its own.
final class GroupSync: Sendable {
    static let shared = GroupSync()

    private struct Waiting {
        var file: OwnedFile
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var flushing = false
    }

    private let state = Mutex(State())

    /// Returns once `file`'s data and metadata (and its folder's, when `file` is a folder) are on disk.
    func sync(_ file: OwnedFile) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let lead = state.withLock { state -> Bool in
                state.waiting.append(Waiting(file: file, continuation: continuation))
                guard !state.flushing else { return false }
                state.flushing = true
                return true
            }
            if lead { Task { await self.flush() } }
        }
    }

    /// Flushes group after group until nobody waits.
    private func flush() async {
        while true {
            let group = state.withLock { state -> [Waiting] in
                let group = state.waiting
                state.waiting = []
                if group.isEmpty { state.flushing = false }
                return group
            }
            guard !group.isEmpty else { return }
            let results: [Result<Void, any Error>]
            do {
                results = try await BlockingIO.run { Self.syncGroup(group.map(\.file)) }
            } catch {
                results = Array(repeating: .failure(error), count: group.count)
            }
            for (waiting, result) in zip(group, results) { waiting.continuation.resume(with: result) }
        }
    }

    /// One `syncfs` per filesystem of `files`; each file gets its filesystem's outcome.
    private static func syncGroup(_ files: [OwnedFile]) -> [Result<Void, any Error>] {
        var outcome = [UInt64: Result<Void, any Error>]()
        return files.map { file in
            var info = stat()
            guard fstat(file.descriptor, &info) == 0 else {
                return .failure(POSIXFailure(operation: "stat", path: file.path, code: errno))
            }
            let device = UInt64(info.st_dev)
            if let known = outcome[device] { return known }
            let result: Result<Void, any Error>
            if linuxSyncFS(file.descriptor) == 0 {
                result = .success(())
            } else if errno == ENOSYS {
                result = Result { try file.sync() }
                return result
            } else {
                result = .failure(POSIXFailure(operation: "syncfs", path: file.path, code: errno))
            }
            outcome[device] = result
            return result
        }
    }
}

/// Linux's `syncfs(2)`, which the Glibc module does not import (it needs `_GNU_SOURCE`).
@_silgen_name("syncfs")
private func linuxSyncFS(_ descriptor: Int32) -> Int32
