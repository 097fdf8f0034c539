import FerryCore
import FerryTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `ferry ls`, `lsf`, `size` and `check` through the real binary, on a local tree and on its copies in a Dropbox
/// folder and a Drive folder (the dev server) and an S3 prefix (moto), put there by a worker as users would.
@Suite("ferry CLI: ls, lsf, size and check", .tags(.postgres, .process), .serialized)
struct ListingCommandTests {
    static let s3KeyID = "AKIAFERRYLISTING0001"
    static let s3Secret = "ferry-listing-secret-access-key-00000000000"

    /// A database with accounts `box` (Dropbox), `drive` (Drive) and `arc` (S3), and the tree `a.txt` (3 bytes),
    /// `sub/b.jpg` (5), `sub/deep/c.jpg` (1) in a local folder and below `Tree/` on each.
    struct World {
        let db: TestDatabase
        let server: DevServerProcess
        let dir: String
        let bucket: String
        let refreshTokens: [String]

        var tree: String { dir + "/tree" }
        /// Each provider's copy of the tree.
        var remotes: [String] { ["dropbox:box:/Tree/", "s3:arc:\(bucket)/tree/", "gdrive:drive:/Tree/"] }

        func run(_ arguments: [String], environment: [String: String] = DropboxAccounts.environment) async throws -> FerryProcess.Result {
            let result = try await FerryProcess.run(arguments, databaseURL: db.url, environment: environment)
            // Secrets never reach the output, whatever the command did.
            for secret in [DropboxAccounts.secretKey, ListingCommandTests.s3Secret, server.appSecret] + refreshTokens {
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "a secret in the output of \(arguments)")
            }
            return result
        }
    }

    static func world() async throws -> World {
        let db = try await TestDatabase.make("listing")
        let server = try await DevServerProcess()
        let dir = try temporaryFolder("listing")
        try FileManager.default.createDirectory(atPath: dir + "/tree/sub/deep", withIntermediateDirectories: true)
        try Data("abc".utf8).write(to: URL(fileURLWithPath: dir + "/tree/a.txt"))
        try Data("12345".utf8).write(to: URL(fileURLWithPath: dir + "/tree/sub/b.jpg"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/tree/sub/deep/c.jpg"))
        var tokens = [try await DropboxAccounts.add("box", server: server, databaseURL: db.url)]
        let reply = try await server.request("POST", "/__dev/gdrive/accounts", json: .object(["account": .string("drive")]))
        let driveToken = try #require(reply["refresh_token"]?.stringValue)
        tokens.append(driveToken)
        let drive = try await FerryProcess.run(
            ["account", "add", "drive", "--provider", "gdrive", "--client-id", DevServerProcess.appKey, "--client-secret-file", server.appSecretFile,
             "--refresh-token-file", "-", "--api-url", server.baseURL],
            databaseURL: db.url, stdin: driveToken + "\n", environment: DropboxAccounts.environment)
        #expect(drive.status == 0, "\(drive.stderr)")
        let url = try MotoServer.url.get()
        let bucket = "ferry-listing-\(UUID().uuidString.prefix(8).lowercased())"
        var create = URLRequest(url: URL(string: url + "/" + bucket)!)
        create.httpMethod = "PUT"
        _ = try await URLSession.shared.data(for: create)
        try s3KeyID.write(toFile: dir + "/key-id", atomically: true, encoding: .utf8)
        let s3 = try await FerryProcess.run(
            ["account", "add", "arc", "--provider", "s3", "--region", "us-east-1", "--endpoint-url", url, "--path-style",
             "--access-key-id-file", dir + "/key-id", "--secret-access-key-file", "-"],
            databaseURL: db.url, stdin: s3Secret + "\n", environment: DropboxAccounts.environment)
        #expect(s3.status == 0, "\(s3.stderr)")
        let world = World(db: db, server: server, dir: dir, bucket: bucket, refreshTokens: tokens)
        for remote in world.remotes {
            let enqueued = try await FerryProcess.run(
                ["enqueue", "upload", world.tree + "/", "--recursive", "--to", remote, "--batch", "seed"], databaseURL: db.url)
            #expect(enqueued.status == 0, "\(enqueued.stderr)")
        }
        let worker = try TestWorker.transfers(db, name: "listing-seed")
        defer { worker.signal(SIGKILL) }
        let waited = try await FerryProcess.run(["wait", "--batch", "seed", "--timeout", "240"], databaseURL: db.url)
        #expect(waited.status == 0, "the tree was copied to every provider: \(waited.stdout) \(waited.stderr) \(worker.log)")
        return world
    }

    @Test("ls, lsf and size list the tree alike on a local folder, Dropbox, S3 and Drive: recursive or not, JSON Lines, filtered")
    func listings() async throws {
        let world = try await Self.world()
        defer { try? FileManager.default.removeItem(atPath: world.dir) }
        for remote in [world.tree, "file://" + world.tree + "/"] + world.remotes {
            let ls = try await world.run(["ls", remote])
            #expect(ls.status == 0, "\(remote): \(ls.stderr)")
            #expect(ls.lines.sorted() == ["        1 sub/deep/c.jpg", "        3 a.txt", "        5 sub/b.jpg"], "\(remote): \(ls.stdout)")

            let flat = try await world.run(["ls", remote, "--no-recursive"])
            #expect(flat.lines == ["        3 a.txt"], "\(remote): \(flat.stdout)")

            let lsf = try await world.run(["lsf", remote])
            #expect(lsf.lines.sorted() == ["a.txt", "sub/"], "\(remote): \(lsf.stdout)")
            let deep = try await world.run(["lsf", remote, "-R", "--files-only", "--format", "ps", "--separator", " "])
            #expect(deep.lines.sorted() == ["a.txt 3", "sub/b.jpg 5", "sub/deep/c.jpg 1"], "\(remote): \(deep.stdout)")

            let json = try await world.run(["ls", remote, "--json", "--include", "*.jpg"])
            let objects = try json.lines.map { try JSONValue.parse($0) }
            #expect(Set(objects.compactMap { $0["path"]?.stringValue }) == ["sub/b.jpg", "sub/deep/c.jpg"], "\(remote): \(json.stdout)")
            #expect(objects.allSatisfy { $0["is_dir"] == .bool(false) && $0["size"]?.intValue != nil && $0["modified"]?.stringValue != nil })

            let size = try await world.run(["size", remote, "--json", "--exclude", "deep/**"])
            #expect(try JSONValue.parse(size.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == .object(["count": .int(2), "bytes": .int(8)]), "\(remote): \(size.stdout)")
        }
        // A folder that is not there: said so (66), on every provider.
        for missing in ["dropbox:box:/Nothing/", "gdrive:drive:/Nothing/", "s3:arc:no-such-bucket-\(world.bucket)/x/", world.dir + "/nothing"] {
            let result = try await world.run(["ls", missing])
            #expect(result.status == 66 && result.stderr.hasPrefix("error: "), "\(missing): \(result.status) \(result.stderr)")
        }
        // An account of another provider: refused as unusable, naming the fix, whichever way round.
        for wrong in ["dropbox:arc:/x/", "s3:box:bucket/x/", "gdrive:arc:/x/"] {
            let result = try await world.run(["ls", wrong])
            #expect(result.status == 78 && result.stderr.contains("error: "), "\(wrong): \(result.status) \(result.stderr)")
        }
        let empty = try await world.run(["ls", "s3:arc:\(world.bucket)/no-such-prefix/"])
        #expect(empty.status == 0 && empty.stdout.isEmpty, "an S3 prefix holding nothing lists nothing: \(empty.stderr)")
        // Digests as each service states them: S3's plain ETag and Drive's md5Checksum are the MD5; Dropbox its content hash.
        let s3 = try await world.run(["lsf", world.remotes[1], "--format", "ph", "--files-only", "--include", "a.txt"])
        #expect(s3.lines == ["a.txt;md5:900150983cd24fb0d6963f7d28e17f72"], "\(s3.stdout)")
        let drive = try await world.run(["lsf", world.remotes[2], "--format", "ph", "--files-only", "--include", "a.txt"])
        #expect(drive.stdout.contains("md5:900150983cd24fb0d6963f7d28e17f72"), "\(drive.stdout)")
        let dropbox = try await world.run(["lsf", world.remotes[0], "--format", "ph", "--files-only", "--include", "a.txt"])
        #expect(dropbox.stdout.contains("a.txt;dropbox-content-hash:"), "\(dropbox.stdout)")
    }

    @Test("check finds a missing, an extra and a same-size changed file (the latter by --checksum or --download) against S3, Dropbox and Drive copies")
    func check() async throws {
        let world = try await Self.world()
        defer { try? FileManager.default.removeItem(atPath: world.dir) }
        // The changed tree: a new file (missing on the copy), one gone (extra there), one changed at the same size.
        let changed = world.dir + "/changed"
        try FileManager.default.copyItem(atPath: world.tree, toPath: changed)
        try Data("new".utf8).write(to: URL(fileURLWithPath: changed + "/new.txt"))
        try FileManager.default.removeItem(atPath: changed + "/sub/deep/c.jpg")
        try Data("abd".utf8).write(to: URL(fileURLWithPath: changed + "/a.txt"))
        for remote in world.remotes {
            for mode in [[], ["--checksum"], ["--download"]] {
                let equal = try await world.run(["check", world.tree, remote] + mode)
                #expect(equal.status == 0, "\(remote) \(mode): \(equal.stdout) \(equal.stderr)")
                #expect(equal.lines.sorted() == ["= a.txt", "= sub/b.jpg", "= sub/deep/c.jpg"], "\(remote) \(mode): \(equal.stdout)")
                #expect(equal.stderr.contains("0 differences found"), "\(equal.stderr)")
            }
            let bySize = try await world.run(["check", changed, remote])
            #expect(bySize.status == 1, "\(remote): \(bySize.stderr)")
            #expect(bySize.lines == ["= a.txt", "- new.txt", "= sub/b.jpg", "+ sub/deep/c.jpg"], "\(remote): \(bySize.stdout)")
            for mode in ["--checksum", "--download"] {
                let deep = try await world.run(["check", changed, remote, mode])
                #expect(deep.status == 1, "\(remote) \(mode): \(deep.stderr)")
                #expect(deep.lines == ["* a.txt", "- new.txt", "= sub/b.jpg", "+ sub/deep/c.jpg"], "\(remote) \(mode): \(deep.stdout)")
                #expect(deep.stderr.contains("3 differences found: 1 missing on the destination, 1 extra, 1 different"), "\(deep.stderr)")
            }
        }
        // --one-way leaves out what only the copy holds; --json says each file's status, exact and escaped as JSON is.
        let oneWay = try await world.run(["check", changed, world.remotes[0], "--one-way"])
        #expect(oneWay.status == 1 && oneWay.lines == ["= a.txt", "- new.txt", "= sub/b.jpg"], "\(oneWay.stdout) \(oneWay.stderr)")
        let json = try await world.run(["check", changed, world.remotes[2], "--json", "--download", "--checkers", "1"])
        let statuses = try json.lines.map { try JSONValue.parse($0) }.map { "\($0["status"]?.stringValue ?? "") \($0["path"]?.stringValue ?? "")" }
        #expect(json.status == 1 && statuses == ["different a.txt", "missing new.txt", "equal sub/b.jpg", "extra sub/deep/c.jpg"], "\(json.stdout)")
        // Either way round, and between two providers (digests in common: S3 and Drive both state MD5).
        let reversed = try await world.run(["check", world.remotes[1], changed, "--checksum", "--differ-only"])
        #expect(reversed.status == 1 && reversed.lines == ["* a.txt", "+ new.txt", "- sub/deep/c.jpg"], "\(reversed.stdout) \(reversed.stderr)")
        let across = try await world.run(["check", world.remotes[1], world.remotes[2], "--checksum"])
        #expect(across.status == 0 && !across.stderr.contains("size only"), "\(across.stdout) \(across.stderr)")
        // No digest in common and neither side local: said, and compared by size.
        let unlike = try await world.run(["check", world.remotes[0], world.remotes[1], "--checksum"])
        #expect(unlike.status == 0 && unlike.stderr.contains("compared by size only"), "\(unlike.stdout) \(unlike.stderr)")
    }

    @Test("hostile input: a name with escape sequences is shown escaped, bad remotes, accounts and filters are refused naming the fix")
    func hostile() async throws {
        let db = try await TestDatabase.make("listing_hostile")
        let dir = try temporaryFolder("listing-hostile")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let evil = "evil\u{1B}]0;owned\u{07}\u{1B}[2Jname\u{9B}31m.txt"
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/" + evil))
        try FileManager.default.createDirectory(atPath: dir + "/copy", withIntermediateDirectories: true)
        for arguments in [["ls", dir], ["lsf", dir], ["lsf", dir, "--format", "pst"], ["check", dir, dir + "/copy"]] {
            let result = try await FerryProcess.run(arguments, databaseURL: db.url)
            #expect(!result.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B }, "raw control characters in \(arguments)")
            #expect(result.stdout.contains("evil\\u{1b}]0;owned\\u{7}\\u{1b}[2Jname\\u{9b}31m.txt"), "\(arguments): \(result.stdout)")
        }
        let json = try await FerryProcess.run(["ls", dir, "--json"], databaseURL: db.url)
        #expect(!json.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
        #expect(try JSONValue.parse(json.lines[0])["path"]?.stringValue == evil, "JSON keeps the name exactly: \(json.stdout)")

        let cases: [([String], [String: String], Int32, String)] = [
            (["ls", "gopher://host/x"], [:], 65, "no provider lists 'gopher:'"),
            (["ls", "dropbox:box"], [:], 65, "write dropbox:box:/path"),
            (["ls", "s3:arc:bucket/x/", "--include", "[a"], [:], 64, "--include '[a'"),
            (["ls", dir, "--max-size", "lots"], [:], 64, "--max-size 'lots' is not a size"),
            (["ls", dir, "--max-entries", "0"], [:], 64, "--max-entries"),
            (["ls", dir + "/missing"], [:], 66, "is not a folder"),
            (["lsf", dir, "--format", "pz"], [:], 64, "--format takes letters"),
            (["ls", "dropbox:nobody:/x/"], DropboxAccounts.environment, 78, "ferry account list"),
            (["ls", "dropbox:nobody:/x/"], ["FERRY_SECRET_KEY": ""], 78, "no secret key"),
            (["check", dir, "s3:nobody:bucket/x/"], DropboxAccounts.environment, 78, "account"),
            (["check", dir, dir, "--checksum", "--download"], [:], 64, "not both"),
            (["check", dir, dir, "--checkers", "0"], [:], 64, "--checkers takes 1 to 64"),
        ]
        for (arguments, environment, status, message) in cases {
            let result = try await FerryProcess.run(arguments, databaseURL: db.url, environment: environment)
            #expect(result.status == status, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        // Too many entries: the bound ends the listing with an error, not a partial answer.
        let bounded = try await FerryProcess.run(["ls", dir, "--max-entries", "1"], databaseURL: db.url)
        #expect(bounded.status == 65 && bounded.stderr.contains("more than 1 entries"), "\(bounded.stderr)")
    }
}
