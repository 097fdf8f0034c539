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
    func fullDisk() async throws {
        let root = try temporaryFolder("archive-no-space")
        defer { try? FileManager.default.removeItem(atPath: root) }
        guard geteuid() == 0, await Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", root]) else {
            print("ArchiveNoSpaceTests.fullDisk skipped: mounting a tmpfs needs root (uid \(geteuid()))")
            return
        }
        defer { Self.unmount(root) }
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
    /// Detaches the mount at once (`umount -l` does not wait), before the defers that remove its folder.
    static func unmount(_ path: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/umount")
        process.arguments = ["-l", path]
        guard (try? process.run()) != nil else { return }
        process.waitUntilExit()
    }

    static func run(_ executable: String, _ arguments: [String]) async -> Bool {
        (try? await ChildProcess.run(executable, arguments))?.status == 0
    }
}
