import FerryCore
import FerryWorker
import Logging

/// `ferry check`'s comparison of two listed trees, files only, by path below each folder (case-insensitively when
/// either provider ignores case). The source side is held (one entry per file, bounded by `--max-entries`) while the
/// destination is listed page by page; files on both sides are then compared one by one.
struct TreeComparison: Sendable {
    /// How files of the same size are told apart.
    enum Mode: String, Sendable {
        /// Same size is equal.
        case size
        /// A content digest both sides state; a local side is hashed to match the other side's digest.
        case checksum
        /// Both sides read and hashed (SHA-256, streamed: bounded memory whatever the file's size).
        case download
    }

    /// One line of the report: `=` equal, `-` missing on the destination, `+` extra on it, `*` different, `!` error.
    struct Line: Sendable {
        var mark: Character
        var path: String
    }

    let source: RemoteListing
    let destination: RemoteListing
    let mode: Mode
    let options: RemoteListOptions
    /// Files compared (read) at once.
    var checkers = 4
    let logger: Logger

    /// The report's lines, sorted by path, and how many same-size files no digest could tell apart (compared by size).
    func run() async throws -> (lines: [Line], unverified: Int) {
        let folded = source.provider.pathsIgnoreCase || destination.provider.pathsIgnoreCase
        func key(_ path: String) -> String { folded ? path.lowercased() : path }
        var held = [String: RemoteEntry]()
        try await source.run(options: options, logger: logger) { entries in
            for entry in entries where !entry.isFolder { held[key(entry.path)] = entry }
        }
        var lines = [Line]()
        var pairs = [(RemoteEntry, RemoteEntry)]()
        try await destination.run(options: options, logger: logger) { entries in
            for entry in entries where !entry.isFolder {
                if let twin = held.removeValue(forKey: key(entry.path)) {
                    pairs.append((twin, entry))
                } else {
                    lines.append(Line(mark: "+", path: entry.path))
                }
            }
        }
        lines += held.values.map { Line(mark: "-", path: $0.path) }
        let (compared, unverified) = await compareAll(pairs)
        return ((lines + compared).sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }, unverified)
    }

    /// Compares the files on both sides, `checkers` at a time (only sizes: all at once, nothing is read).
    func compareAll(_ pairs: [(RemoteEntry, RemoteEntry)]) async -> (lines: [Line], unverified: Int) {
        await withTaskGroup(of: (Line, Bool).self) { group in
            var lines = [Line]()
            var unverified = 0
            var next = pairs.makeIterator()
            func start() {
                guard let (left, right) = next.next() else { return }
                group.addTask {
                    do {
                        let verdict = try await compare(left, right)
                        return (Line(mark: verdict == false ? "*" : "=", path: left.path), verdict == nil)
                    } catch {
                        printError(TablePrinter.printable("error: \(left.path): \(error)"))
                        return (Line(mark: "!", path: left.path), false)
                    }
                }
            }
            for _ in 0..<max(1, checkers) { start() }
            while let (line, bySizeOnly) = await group.next() {
                lines.append(line)
                if bySizeOnly { unverified += 1 }
                start()
            }
            return (lines, unverified)
        }
    }

    /// Whether two files hold the same bytes: `false` when they differ, `nil` when only their sizes could be compared.
    func compare(_ left: RemoteEntry, _ right: RemoteEntry) async throws -> Bool? {
        guard left.size == right.size else { return false }
        switch mode {
        case .size:
            return true
        case .download:
            let kind = ContentDigestKind.sha256
            return try await digest(left, kind, source.lister) == digest(right, kind, destination.lister)
        case .checksum:
            if let shared = left.digests.first(where: { right.digest($0.kind) != nil }), let other = right.digest(shared.kind) {
                return shared.value.lowercased() == other.value.lowercased()
            }
            if source.lister.readsLocally, let stated = right.digests.first {
                return try await digest(left, stated.kind, source.lister) == stated.value.lowercased()
            }
            if destination.lister.readsLocally, let stated = left.digests.first {
                return try await digest(right, stated.kind, destination.lister) == stated.value.lowercased()
            }
            return nil
        }
    }

    /// The digest of `kind` of a file, read through its lister.
    func digest(_ entry: RemoteEntry, _ kind: ContentDigestKind, _ lister: any RemoteLister) async throws -> String {
        var hasher = kind.make()
        try await lister.read(entry, logger: logger) { buffer in
            buffer.withUnsafeReadableBytes { hasher.update($0) }
        }
        return hasher.finalize().lowercased()
    }
}
