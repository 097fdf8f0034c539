import CompressNIO
import Crypto
import Foundation
import NIOCore

/// Reads an archive file back: checks its SHA-256 while decompressing, and hands out its lines.
public enum ArchiveFileReader {
    /// The header line of `path`.
    public static func header(of path: String) throws -> ArchiveHeader {
        struct Found: Error { let header: ArchiveHeader }
        do {
            _ = try read(path) { line in
                guard let header = ArchiveHeader(line: line) else {
                    throw ArchiveError(.corrupt, "\(path) is not a Ferry archive (no header line)",
                                       fix: "pass a file written by ferry archive (*.jsonl.gz)")
                }
                throw Found(header: header)
            }
        } catch let found as Found {
            return found.header
        }
        throw ArchiveError(.corrupt, "\(path) is empty", fix: "pass a file written by ferry archive (*.jsonl.gz)")
    }

    /// Calls `body` with every job line (the header skipped) and returns the file's SHA-256 and size. Throws
    /// ``ArchiveError`` when the file is truncated or corrupt; the caller compares the checksum.
    public static func forEachJob(in path: String, _ body: (String) throws -> Void) throws -> (sha256: String, bytes: Int) {
        var first = true
        return try read(path) { line in
            if first {
                first = false
                guard ArchiveHeader(line: line) != nil else {
                    throw ArchiveError(.corrupt, "\(path) is not a Ferry archive (no header line)")
                }
                return
            }
            try body(line)
        }
    }

    /// SHA-256 and size of a file, without decompressing it.
    public static func checksum(of path: String) throws -> (sha256: String, bytes: Int) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ArchiveError(.missing, "cannot open \(path)", fix: "check the path")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var bytes = 0
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
            hasher.update(data: data)
            bytes += data.count
        }
        return (hasher.finalize().map { String(format: "%02x", $0) }.joined(), bytes)
    }

    private static func read(_ path: String, _ body: (String) throws -> Void) throws -> (sha256: String, bytes: Int) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ArchiveError(.missing, "cannot open \(path)", fix: "check the path")
        }
        defer { try? handle.close() }
        let decompressor: ZlibDecompressor
        do {
            decompressor = try ZlibDecompressor(algorithm: .gzip)
        } catch {
            throw ArchiveError(.io, "cannot start gzip decompression: \(error)")
        }
        var hasher = SHA256()
        var bytes = 0
        var window = ByteBufferAllocator().buffer(capacity: 1 << 20)
        var carry = [UInt8]()
        func emitLines(_ chunk: ByteBuffer) throws {
            carry.append(contentsOf: chunk.readableBytesView)
            var start = carry.startIndex
            while let newline = carry[start...].firstIndex(of: UInt8(ascii: "\n")) {
                try body(String(decoding: carry[start..<newline], as: UTF8.self))
                start = newline + 1
            }
            carry.removeSubrange(..<start)
        }
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
            hasher.update(data: data)
            bytes += data.count
            var input = ByteBufferAllocator().buffer(capacity: data.count)
            input.writeBytes(data)
            do {
                try input.decompressStream(with: decompressor, window: &window) { chunk in try emitLines(chunk) }
            } catch let error as ArchiveError {
                throw error
            } catch let error as CompressNIOError {
                throw ArchiveError(.corrupt, "\(path) is not a valid gzip file (\(error))",
                                   fix: "the file is damaged: restore it from a backup")
            }
            // decompressStream hands the window's rest to `process` itself before returning.
            window.clear()
        }
        guard carry.isEmpty else {
            throw ArchiveError(.corrupt, "\(path) ends in the middle of a line", fix: "the file is truncated: restore it from a backup")
        }
        return (hasher.finalize().map { String(format: "%02x", $0) }.joined(), bytes)
    }
}
