import FerryArchive
import FerryCore
import FerryTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An archive file that fills its disk is removed at once: it can never be committed, and its bytes would hold
/// the space until the next run's recovery.
@Suite("archive files on a full disk", .tags(.process))
struct ArchiveNoSpaceTests {
    @Test("writing an archive into a full 256 KiB tmpfs fails with the reason and leaves no .partial file (root only)")
    func fullDisk() throws {
        let root = try temporaryFolder("archive-no-space")
        defer { try? FileManager.default.removeItem(atPath: root) }
        guard geteuid() == 0, Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", root]) else {
            print("ArchiveNoSpaceTests.fullDisk skipped: mounting a tmpfs needs root (uid \(geteuid()))")
            return
        }
        defer { _ = Self.run("/bin/umount", ["-l", root]) }
        let path = root + "/ferry-archive-\(UUID().uuidString.lowercased()).jsonl.gz"
        let writer = try ArchiveFileWriter(path: path, header: ArchiveHeader(archiveID: UUIDv7.make(), finishedBefore: Date()))
        // Incompressible lines: 4 MiB of them cannot fit.
        let random = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? random.close() }
        let error = #expect(throws: ArchiveError.self) {
            for _ in 0..<64 {
                try writer.write(line: Array(try random.read(upToCount: 65_536) ?? Data()))
            }
            _ = try writer.finish()
        }
        #expect(error?.code == .io && error?.description.contains("No space left on device") == true, "\(String(describing: error))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root).isEmpty, "the .partial file is removed")
    }

    /// Runs a command; true when it exits 0.
    static func run(_ executable: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
