import AsyncHTTPClient
import FerryCore
import FerryProviders
import FerryTestSupport
import FerryWorker
import Foundation
import Logging
import NIOCore
import Testing

/// The listing seam on local folders (no account needed): what a listing yields, its filter and bounds, and the
/// local roots it stays in.
@Suite(.tags(.fast))
struct RemoteListingTests {
    static func environment(_ roots: LocalRoots) -> ProviderEnvironment {
        ProviderEnvironment(httpClient: .shared, tokens: nil, chunkSize: 1 << 20, localRoots: roots)
    }

    /// `a.txt` (3 bytes), `sub/b.jpg` (5), `sub/deep/c.jpg` (1), a link to /etc.
    static func tree() throws -> String {
        let dir = try temporaryFolder("listing")
        try FileManager.default.createDirectory(atPath: dir + "/sub/deep", withIntermediateDirectories: true)
        try Data("abc".utf8).write(to: URL(fileURLWithPath: dir + "/a.txt"))
        try Data("12345".utf8).write(to: URL(fileURLWithPath: dir + "/sub/b.jpg"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/sub/deep/c.jpg"))
        try FileManager.default.createSymbolicLink(atPath: dir + "/etc-link", withDestinationPath: "/etc")
        return dir
    }

    static func list(_ remote: String, roots: LocalRoots, _ options: RemoteListOptions) async throws -> [RemoteEntry] {
        let listing = try RemoteListing.open(remote, registry: .standard, environment: environment(roots))
        var all = [RemoteEntry]()
        try await listing.run(options: options, logger: Logger(label: "test")) { all += $0 }
        return all.sorted { $0.path < $1.path }
    }

    @Test("a local folder lists files and folders, recursively or one level, never following a link out of it")
    func localTree() async throws {
        let dir = try Self.tree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let roots = try LocalRoots(directories: [dir])
        let deep = try await Self.list(dir + "/", roots: roots, RemoteListOptions(recursive: true))
        #expect(deep.map(\.path) == ["a.txt", "sub", "sub/b.jpg", "sub/deep", "sub/deep/c.jpg"])
        #expect(deep.first?.size == 3 && deep.first?.isFolder == false && deep[1].isFolder)
        #expect(deep.first?.reference == FileURL.text(of: dir + "/a.txt"))
        let flat = try await Self.list(FileURL.text(of: dir), roots: roots, RemoteListOptions(recursive: false))
        #expect(flat.map(\.path) == ["a.txt", "sub"])

        var filter = FileFilter()
        filter.rules = [.init(include: false, pattern: try GlobPattern("*.jpg"), origin: "--exclude '*.jpg'")]
        let filtered = try await Self.list(dir, roots: roots, RemoteListOptions(recursive: true, filter: filter))
        #expect(filtered.filter { !$0.isFolder }.map(\.path) == ["a.txt"])

        var bytes = [UInt8]()
        let listing = try RemoteListing.open(dir, registry: .standard, environment: Self.environment(roots))
        try await listing.lister.read(deep[2], logger: Logger(label: "test")) { bytes += Array(buffer: $0) }
        #expect(bytes == Array("12345".utf8))
    }

    @Test("bounds end a listing with a coded error: too many entries, too deep")
    func bounds() async throws {
        let dir = try Self.tree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        await #expect { try await Self.list(dir, roots: .unconfined, RemoteListOptions(recursive: true, maxEntries: 2)) } throws: {
            ($0 as? RemoteListingError)?.code == .tooManyEntries
        }
        await #expect { try await Self.list(dir, roots: .unconfined, RemoteListOptions(recursive: true, maxDepth: 1)) } throws: {
            ($0 as? RemoteListingError)?.code == .tooDeep
        }
    }

    @Test("hostile remotes: outside the roots, no roots at all, a relative path, .., an unknown scheme, a missing folder")
    func refusals() async throws {
        let dir = try Self.tree()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let roots = try LocalRoots(directories: [dir + "/sub"])
        await #expect { try await Self.list(dir, roots: roots, RemoteListOptions(recursive: true)) } throws: {
            ($0 as? JobFailure)?.code == "outside_local_roots"
        }
        await #expect { try await Self.list(dir + "/sub/../", roots: .unconfined, RemoteListOptions(recursive: true)) } throws: {
            $0 is ValidationIssue || ($0 as? JobFailure)?.code == "unsafe_path"
        }
        await #expect { try await Self.list(dir, roots: .none, RemoteListOptions(recursive: true)) } throws: { $0 is JobFailure }
        await #expect { try await Self.list("relative/dir", roots: .unconfined, RemoteListOptions(recursive: true)) } throws: {
            ($0 as? ValidationIssue)?.fix.contains("/dir/ or file:///dir/") == true
        }
        await #expect { try await Self.list("gopher://x/", roots: .unconfined, RemoteListOptions(recursive: true)) } throws: {
            ($0 as? ValidationIssue)?.problem.contains("no provider lists 'gopher:'") == true
        }
        await #expect { try await Self.list(dir + "/nothing/", roots: .unconfined, RemoteListOptions(recursive: true)) } throws: {
            ($0 as? RemoteListingError)?.code == .notFound || ($0 as? JobFailure) != nil
        }
        // An account provider without the secret key: said so, naming the fix.
        await #expect { try await Self.list("s3:acct:bucket/x/", roots: .unconfined, RemoteListOptions(recursive: true)) } throws: {
            ($0 as? RemoteListingError)?.code == .notListable
        }
    }
}
