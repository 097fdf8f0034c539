import FerryTestSupport
import Foundation
import Postgres
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `ferry enqueue upload DIR --recursive`: trees keep their folders, collisions are refused before anything is
/// written, filters choose files, links and special files follow the stated policy, and `--dry-run` writes nothing.
@Suite("ferry CLI: upload trees, collisions, filters, dry run", .tags(.postgres, .process))
struct TreeEnqueueTests {
    /// A fresh folder under the temporary directory (inside the test workers' local roots).
    static func folder(_ label: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-tree-\(label)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Writes `files` (relative path → content) under `root`, making the folders.
    static func write(_ files: [String: String], under root: String) throws {
        for (relative, content) in files {
            let path = root + "/" + relative
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try content.write(toFile: path, atomically: false, encoding: .utf8)
        }
    }

    /// Three levels, the same file name in three folders.
    static let threeLevels = [
        "a.jpg": "top", "2025/a.jpg": "twenty-five", "2025/jan/a.jpg": "january", "2025/jan/notes.txt": "n",
    ]

    func counts(_ db: TestDatabase) async throws -> (jobs: Int, events: Int) {
        let row = try await db.query("SELECT (SELECT count(*) FROM ferry.jobs), (SELECT count(*) FROM ferry.events)").rows[0]
        return (try row.decode(Int.self, at: 0), try row.decode(Int.self, at: 1))
    }

    func destinations(_ db: TestDatabase) async throws -> [String] {
        try await db.query("SELECT destination FROM ferry.jobs ORDER BY destination").rows.map { try $0.decode(String.self, at: 0) }
    }

    @Test("a tree of three levels with one file name in three folders arrives with its structure (local directory)")
    func treeArrivesWithStructure() async throws {
        let db = try await TestDatabase.make("tree")
        let source = try Self.folder("src")
        let target = try Self.folder("dst")
        defer { try? FileManager.default.removeItem(atPath: source); try? FileManager.default.removeItem(atPath: target) }
        try Self.write(Self.threeLevels, under: source)
        let result = try await FerryProcess.run(
            ["enqueue", "upload", source, "--recursive", "--to", target + "/", "--batch", "tree"], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 4)
        let worker = try BackgroundProcess(ferry: ["worker", "--poll-interval", "0.3", "--heartbeat-interval", "0.3"], databaseURL: db.url)
        let waited = try await FerryProcess.run(["wait", "--batch", "tree", "--timeout", "120"], databaseURL: db.url)
        #expect(waited.status == 0, "\(waited.stdout)\(waited.stderr)\n\(worker.log)")
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        for (relative, content) in Self.threeLevels {
            #expect((try? String(contentsOfFile: target + "/" + relative, encoding: .utf8)) == content, "\(relative)")
        }
    }

    @Test("a tree copied again moves only what changed (--if-changed is the default for trees); --no-if-changed sends all")
    func treeAgainMovesOnlyChanges() async throws {
        let db = try await TestDatabase.make("tree_again")
        let source = try Self.folder("src")
        let target = try Self.folder("dst")
        defer { try? FileManager.default.removeItem(atPath: source); try? FileManager.default.removeItem(atPath: target) }
        try Self.write(Self.threeLevels, under: source)
        let worker = try BackgroundProcess(ferry: ["worker", "--poll-interval", "0.3", "--heartbeat-interval", "0.3"], databaseURL: db.url)
        func copy(_ batch: String, _ extra: [String] = []) async throws -> String {
            let result = try await FerryProcess.run(
                ["enqueue", "upload", source, "--recursive", "--to", target + "/", "--batch", batch] + extra, databaseURL: db.url)
            #expect(result.status == 0, "\(result.stderr)")
            let waited = try await FerryProcess.run(["wait", "--batch", batch, "--timeout", "120"], databaseURL: db.url)
            #expect(waited.status == 0, "\(waited.stdout)\(waited.stderr)")
            return waited.stdout
        }
        _ = try await copy("first")
        try Self.write(["2025/jan/notes.txt": "new notes", "2026/b.jpg": "new"], under: source)
        // notes.txt (changed) is left out by the filter: one new file moves, the rest is skipped.
        let second = try await FerryProcess.run(
            ["enqueue", "upload", source, "--recursive", "--to", target + "/", "--batch", "second", "--exclude", "notes.txt"],
            databaseURL: db.url)
        #expect(second.status == 0, "\(second.stderr)")
        let waited = try await FerryProcess.run(["wait", "--batch", "second", "--timeout", "120"], databaseURL: db.url)
        #expect(waited.stdout.contains("1 transferred, 3 unchanged"), "\(waited.stdout)")
        #expect((try? String(contentsOfFile: target + "/2026/b.jpg", encoding: .utf8)) == "new")
        // Opting out: every job carries no if_changed and moves its data (an identical file then is accepted as is).
        let all = try await copy("third", ["--no-if-changed", "--exclude", "notes.txt"])
        #expect(!all.contains("unchanged"), "\(all)")
        let flagged = try await db.query(
            "SELECT count(*) FILTER (WHERE spec ? 'if_changed') FROM ferry.jobs WHERE batch = 'third'").rows[0].decode(Int.self, at: 0)
        #expect(flagged == 0)
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
    }

    @Test("the same tree arrives with its structure in Dropbox (ferry dev-server)")
    func treeArrivesInDropbox() async throws {
        let server = try await DevServerProcess()
        let db = try await TestDatabase.make("treedbx")
        _ = try await DropboxAccounts.add("photos", server: server, databaseURL: db.url)
        let source = try Self.folder("dbx")
        defer { try? FileManager.default.removeItem(atPath: source) }
        try Self.write(Self.threeLevels, under: source)
        let result = try await FerryProcess.run(
            ["enqueue", "upload", source, "--recursive", "--to", "dropbox:photos:/Tree/", "--batch", "dbx"], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        let worker = try BackgroundProcess(
            ferry: ["worker", "--poll-interval", "0.3", "--heartbeat-interval", "0.3"], databaseURL: db.url, environment: DropboxAccounts.environment)
        let waited = try await FerryProcess.run(["wait", "--batch", "dbx", "--timeout", "120"], databaseURL: db.url)
        #expect(waited.status == 0, "\(waited.stdout)\(waited.stderr)\n\(worker.log)")
        worker.signal(SIGTERM)
        _ = try await worker.waitForExit()
        for (relative, content) in Self.threeLevels {
            let stored = server.storedFile(account: "photos", path: "/Tree/" + relative)
            #expect((try? String(contentsOfFile: stored, encoding: .utf8)) == content, "\(relative) at \(stored)")
        }
    }

    @Test("every upload provider gets the path below DIR; without --recursive a folder is refused pointing at it")
    func destinationsPerProvider() async throws {
        let db = try await TestDatabase.make("treedest")
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('photos', 'dropbox'), ('archive', 's3')")
        let source = try Self.folder("prov")
        defer { try? FileManager.default.removeItem(atPath: source) }
        try Self.write(Self.threeLevels, under: source)
        let dropbox = try await FerryProcess.run(["enqueue", "upload", source, "--recursive", "--to", "dropbox:photos:/Tree/"], databaseURL: db.url)
        #expect(dropbox.status == 0, "\(dropbox.stderr)")
        let s3 = try await FerryProcess.run(["enqueue", "upload", source + "/", "--recursive", "--to", "s3:archive:bucket/cam/"], databaseURL: db.url)
        #expect(s3.status == 0, "\(s3.stderr)")
        let all = try await destinations(db)
        for relative in Self.threeLevels.keys {
            #expect(all.contains("dropbox:photos:/Tree/" + relative), "\(all)")
            #expect(all.contains("s3:archive:bucket/cam/" + relative), "\(all)")
        }
        #expect(!all.contains { $0.contains("..") })
        let refused = try await FerryProcess.run(["enqueue", "upload", source, "--to", "dropbox:photos:/Tree/"], databaseURL: db.url)
        #expect(refused.status == 65 && refused.stderr.contains("directory") && refused.stderr.contains("--recursive"), "\(refused.stderr)")
        let noFolder = try await FerryProcess.run(["enqueue", "upload", source, "--recursive", "--to", "dropbox:photos:/Tree"], databaseURL: db.url)
        #expect(noFolder.status == 64 && noFolder.stderr.contains("end --to with /"), "\(noFolder.stderr)")
        #expect(try await counts(db).jobs == 8)
    }

    @Test("two jobs of one enqueue writing one destination are refused naming both sources, and nothing is written")
    func collisionsRefused() async throws {
        let db = try await TestDatabase.make("treecollide")
        try await db.query("INSERT INTO ferry.accounts (name, provider) VALUES ('photos', 'dropbox')")
        let source = try Self.folder("coll")
        let target = try Self.folder("colldst")
        defer { try? FileManager.default.removeItem(atPath: source); try? FileManager.default.removeItem(atPath: target) }
        try Self.write(Self.threeLevels, under: source)
        // Several files into one folder.
        let files = try await FerryProcess.run(
            ["enqueue", "upload", source + "/a.jpg", source + "/2025/a.jpg", "--to", "dropbox:photos:/Flat/"], databaseURL: db.url)
        #expect(files.status == 65, "\(files.stderr)")
        #expect(files.stderr.contains(source + "/a.jpg") && files.stderr.contains(source + "/2025/a.jpg"), "\(files.stderr)")
        #expect(files.stderr.contains("dropbox:photos:/Flat/a.jpg") && files.stderr.contains("nothing was enqueued"), "\(files.stderr)")
        // A plain list flattens the tree: three a.jpg into one folder.
        let list = Self.threeLevels.keys.sorted().map { source + "/" + $0 }.joined(separator: "\n") + "\n"
        let flattened = try await FerryProcess.run(
            ["enqueue", "upload", "--from", "-", "--format", "lines", "--to", target + "/"], databaseURL: db.url, stdin: list)
        #expect(flattened.status == 65 && flattened.stderr.contains("and 1 more") && flattened.stderr.contains("a.jpg"), "\(flattened.stderr)")
        // JSON Lines.
        let jsonl = [source + "/a.jpg", source + "/2025/jan/a.jpg"].map { #"{"kind":"upload","source":"\#($0)","to":"dropbox:photos:/J/x.jpg"}"# }
        let lines = try await FerryProcess.run(["enqueue", "--from", "-"], databaseURL: db.url, stdin: jsonl.joined(separator: "\n"))
        #expect(lines.status == 65 && lines.stderr.contains("dropbox:photos:/J/x.jpg"), "\(lines.stderr)")
        // Two trees into one folder: each has a.jpg at its top.
        let trees = try await FerryProcess.run(
            ["enqueue", "upload", source, source + "/2025", "--recursive", "--to", "dropbox:photos:/Both/"], databaseURL: db.url)
        #expect(trees.status == 65 && trees.stderr.contains("dropbox:photos:/Both/a.jpg"), "\(trees.stderr)")
        #expect(try await counts(db) == (0, 0))
        // Fetches of URLs that share a file name, into one folder.
        let fetches = try await FerryProcess.run(
            ["enqueue", "fetch", "https://a.example.com/x/p.jpg", "https://b.example.com/p.jpg", "--to", target + "/in/"], databaseURL: db.url)
        #expect(fetches.status == 65 && fetches.stderr.contains("https://a.example.com/x/p.jpg and https://b.example.com/p.jpg"), "\(fetches.stderr)")
        #expect(try await counts(db) == (0, 0))
        // Dropbox paths are case-insensitive, local paths are not.
        let cased = try Self.folder("case")
        defer { try? FileManager.default.removeItem(atPath: cased) }
        try Self.write(["Photos/a.jpg": "1", "photos/a.jpg": "2"], under: cased)
        let folded = try await FerryProcess.run(["enqueue", "upload", cased, "--recursive", "--to", "dropbox:photos:/C/"], databaseURL: db.url)
        #expect(folded.status == 65 && folded.stderr.contains("Photos/a.jpg") && folded.stderr.contains("photos/a.jpg"), "\(folded.stderr)")
        #expect(try await counts(db) == (0, 0))
        let local = try await FerryProcess.run(["enqueue", "upload", cased, "--recursive", "--to", target + "/"], databaseURL: db.url)
        #expect(local.status == 0, "\(local.stderr)")
        #expect(try await counts(db).jobs == 2)
    }

    @Test("filters: --include, --exclude, --filter-from, sizes; an excluded folder is not read; bad values exit 64")
    func filters() async throws {
        let db = try await TestDatabase.make("treefilter")
        let source = try Self.folder("filt")
        let target = try Self.folder("filtdst")
        defer { try? FileManager.default.removeItem(atPath: source); try? FileManager.default.removeItem(atPath: target) }
        try Self.write(
            ["a.jpg": "a", "b.png": "b", "tmp/c.jpg": "c", "deep/x/d.jpg": "d", "big.jpg": String(repeating: "x", count: 20_000)],
            under: source)
        // An unreadable folder that is excluded is never opened (root reads anything, so a FIFO stands for a problem).
        try FileManager.default.createDirectory(atPath: source + "/tmp/sub", withIntermediateDirectories: true)
        mkfifo(source + "/tmp/sub/pipe", 0o600)
        func sources(_ flags: [String]) async throws -> (Int32, [String], String) {
            let db = try await TestDatabase.make("treefilter")
            let result = try await FerryProcess.run(["enqueue", "upload", source, "--recursive", "--to", target + "/"] + flags, databaseURL: db.url)
            let rows = try await db.query("SELECT source FROM ferry.jobs ORDER BY source").rows.map { try $0.decode(String.self, at: 0) }
            return (result.status, rows.map { String($0.dropFirst(source.count + 1)) }, result.stderr)
        }
        var (status, taken, stderr) = try await sources(["--include", "*.jpg", "--exclude", "tmp/**"])
        // --include rules come first: tmp/c.jpg is taken by *.jpg before - tmp/** is reached; b.png falls to the
        // implicit - **, and the pipe to - tmp/**.
        #expect(status == 0 && taken == ["a.jpg", "big.jpg", "deep/x/d.jpg", "tmp/c.jpg"], "\(stderr)")
        (status, taken, stderr) = try await sources(["--exclude", "tmp/**", "--exclude", "*.png"])
        #expect(status == 0, "\(stderr)")
        #expect(taken == ["a.jpg", "big.jpg", "deep/x/d.jpg"])
        (status, taken, stderr) = try await sources(["--exclude", "/tmp/", "--max-size", "10k"])
        #expect(status == 0 && taken == ["a.jpg", "b.png", "deep/x/d.jpg"], "\(stderr)")
        #expect(stderr.contains("2 left out by the filters"), "\(stderr)")
        // The excluded folder is not read: one entry for it, none for what it holds (the pipe would be a problem).
        let dry = try await FerryProcess.run(
            ["enqueue", "upload", source, "--recursive", "--to", target + "/", "--exclude", "/tmp/", "--dry-run", "--json"], databaseURL: db.url)
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.lines.contains { $0.contains("/tmp/\"") && $0.contains("not read") }, "\(dry.stdout)")
        #expect(!dry.stdout.contains("c.jpg") && !dry.stdout.contains("pipe"), "\(dry.stdout)")
        let rules = source + ".rules"
        try "# jpg outside tmp\n- /tmp/**\n+ *.jpg\n- **\n".write(toFile: rules, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: rules) }
        (status, taken, stderr) = try await sources(["--filter-from", rules, "--min-size", "1k"])
        #expect(status == 0 && taken == ["big.jpg"], "\(stderr)")
        (status, taken, stderr) = try await sources(["--filter-from", rules, "--exclude", "deep/"])
        #expect(status == 0 && taken == ["a.jpg", "big.jpg"], "\(stderr)")
        (status, taken, stderr) = try await sources(["--include", "deep/**", "--exclude", "/tmp/"])
        #expect(status == 0 && taken == ["deep/x/d.jpg"], "\(stderr)")
        // Filters on a plain list: the path as written.
        let list = try await FerryProcess.run(
            ["enqueue", "upload", "--from", "-", "--format", "lines", "--to", target + "/", "--include", "*.png"], databaseURL: db.url,
            stdin: "\(source)/a.jpg\n\(source)/b.png\n")
        #expect(list.status == 0 && list.lines.count == 1, "\(list.stderr)")
        let clean = try await TestDatabase.make("treefilterbad")
        for (flags, words) in [
            (["--include", "[oops"], ["--include", "[oops", "]"]), (["--max-size", "lots"], ["--max-size", "100k"]),
            (["--max-age", "yesterday"], ["--max-age", "7d"]), (["--filter-from", "/nonexistent/rules"], ["--filter-from", "cannot read"]),
        ] {
            let bad = try await FerryProcess.run(["enqueue", "upload", source, "--recursive", "--to", target + "/"] + flags, databaseURL: clean.url)
            #expect(bad.status == 64, "\(flags): \(bad.stderr)")
            for word in words { #expect(bad.stderr.contains(word), "\(flags): \(bad.stderr)") }
            #expect(try await counts(clean) == (0, 0))
        }
    }

    @Test("--dry-run --json lists every file with its fate and writes no row; a failing dry run exits non-zero")
    func dryRun() async throws {
        let db = try await TestDatabase.make("treedry")
        let source = try Self.folder("dry")
        let target = try Self.folder("drydst")
        defer { try? FileManager.default.removeItem(atPath: source); try? FileManager.default.removeItem(atPath: target) }
        try Self.write(Self.threeLevels, under: source)
        try FileManager.default.createSymbolicLink(atPath: source + "/link.jpg", withDestinationPath: source + "/a.jpg")
        let result = try await FerryProcess.run(
            ["enqueue", "upload", source, "--recursive", "--to", target + "/", "--exclude", "*.txt", "--dry-run", "--json"], databaseURL: db.url)
        #expect(result.status == 0, "\(result.stderr)")
        let items = try result.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        var fates = [String: String]()
        for item in items { fates[String((item["source"] as? String ?? "").split(separator: "/").suffix(2).joined(separator: "/"))] = item["fate"] as? String }
        #expect(items.count == 5, "\(result.stdout)")
        #expect(fates["jan/a.jpg"] == "enqueue" && fates["2025/a.jpg"] == "enqueue")
        #expect(fates["jan/notes.txt"] == "skip" && fates[source.split(separator: "/").last! + "/link.jpg"] == "skip", "\(fates)")
        #expect(items.contains { ($0["reason"] as? String ?? "").contains("symbolic link") })
        #expect(items.contains { ($0["destination"] as? String) == "file://" + target + "/2025/jan/a.jpg" })
        #expect(try await counts(db) == (0, 0))
        // Text form, a collision (two trees, one a.jpg each): refused in the listing, exit 65, still nothing written.
        let colliding = try await FerryProcess.run(
            ["enqueue", "upload", source, source + "/2025", "--recursive", "--to", target + "/", "--dry-run"], databaseURL: db.url)
        #expect(colliding.status == 65, "\(colliding.stderr)")
        #expect(colliding.stdout.contains("refuse") && colliding.stdout.contains("collision") && colliding.stdout.contains("dry run:"), "\(colliding.stdout)")
        #expect(try await counts(db) == (0, 0))
        // Every form: a fetch, and JSON Lines with a bad line (refused, named).
        let fetch = try await FerryProcess.run(["enqueue", "fetch", "https://example.com/a.jpg", "--to", "/srv/in/", "--dry-run", "--json"], databaseURL: db.url)
        #expect(fetch.status == 0 && fetch.stdout.contains(#""fate":"enqueue""#), "\(fetch.stdout)\(fetch.stderr)")
        let lines = #"{"kind":"fetch","source":"https://example.com/a.jpg","to":"/srv/in/"}"# + "\n" + #"{"kind":"fetch","source":"ftp://x/y","to":"/srv/in/"}"#
        let jsonl = try await FerryProcess.run(["enqueue", "--from", "-", "--dry-run", "--json"], databaseURL: db.url, stdin: lines)
        #expect(jsonl.status == 65, "\(jsonl.stderr)")
        #expect(jsonl.lines.count == 2 && jsonl.lines[1].contains(#""fate":"refuse""#) && jsonl.lines[1].contains(#""line":2"#), "\(jsonl.stdout)")
        #expect(try await counts(db) == (0, 0))
    }

    @Test("symbolic links: skipped and named by default, followed with -L, a loop detected; a FIFO is named")
    func linksAndSpecialFiles() async throws {
        var db = try await TestDatabase.make("treelinks")
        let source = try Self.folder("links")
        let target = try Self.folder("linksdst")
        defer { try? FileManager.default.removeItem(atPath: source); try? FileManager.default.removeItem(atPath: target) }
        try Self.write(["sub/a.jpg": "a", "other/b.jpg": "b"], under: source)
        try FileManager.default.createSymbolicLink(atPath: source + "/sub/link.jpg", withDestinationPath: "../other/b.jpg")
        try FileManager.default.createSymbolicLink(atPath: source + "/sub/up", withDestinationPath: "..")
        let skipped = try await FerryProcess.run(["enqueue", "upload", source, "--recursive", "--to", target + "/"], databaseURL: db.url)
        #expect(skipped.status == 0, "\(skipped.stderr)")
        #expect(skipped.lines.count == 2)
        #expect(skipped.stderr.contains("sub/link.jpg: symbolic link") && skipped.stderr.contains("--follow-symlinks"), "\(skipped.stderr)")
        db = try await TestDatabase.make("treelinks")
        let followed = try await FerryProcess.run(["enqueue", "upload", source, "--recursive", "-L", "--to", target + "/"], databaseURL: db.url)
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.stderr.contains("sub/up: symbolic link loop"), "\(followed.stderr)")
        let rows = try await db.query("SELECT source, destination FROM ferry.jobs ORDER BY destination").rows.map {
            (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1))
        }
        #expect(rows.count == 3, "\(rows)")
        // The link's job reads the real file, and keeps the link's place in the tree.
        #expect(rows.contains { $0.0 == source + "/other/b.jpg" && $0.1.hasSuffix("/sub/link.jpg") }, "\(rows)")
        db = try await TestDatabase.make("treelinks")
        mkfifo(source + "/sub/queue.fifo", 0o600)
        let fifo = try await FerryProcess.run(["enqueue", "upload", source, "--recursive", "--to", target + "/"], databaseURL: db.url)
        #expect(fifo.status == 65 && fifo.stderr.contains("sub/queue.fifo") && fifo.stderr.contains("pipe"), "\(fifo.stderr)")
        #expect(fifo.stderr.contains("--skip-unreadable"))
        #expect(try await counts(db) == (0, 0))
        let skipping = try await FerryProcess.run(["enqueue", "upload", source, "--recursive", "--skip-unreadable", "--to", target + "/"], databaseURL: db.url)
        #expect(skipping.status == 0 && skipping.stderr.contains("sub/queue.fifo"), "\(skipping.stderr)")
        #expect(try await counts(db).jobs == 2)
    }

    @Test("an unreadable file and an unreadable folder are named (not as root: root reads anything)", .enabled(if: geteuid() != 0))
    func unreadable() async throws {
        let db = try await TestDatabase.make("treeperm")
        let source = try Self.folder("perm")
        let target = try Self.folder("permdst")
        defer {
            chmod(source + "/locked", 0o700)
            try? FileManager.default.removeItem(atPath: source)
            try? FileManager.default.removeItem(atPath: target)
        }
        try Self.write(["a.jpg": "a", "secret.jpg": "s", "locked/b.jpg": "b"], under: source)
        chmod(source + "/secret.jpg", 0)
        chmod(source + "/locked", 0)
        let refused = try await FerryProcess.run(["enqueue", "upload", source, "--recursive", "--to", target + "/"], databaseURL: db.url)
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("secret.jpg: cannot be read") && refused.stderr.contains("locked/: folder cannot be read"), "\(refused.stderr)")
        #expect(try await counts(db) == (0, 0))
        let skipped = try await FerryProcess.run(
            ["enqueue", "upload", source, "--recursive", "--skip-unreadable", "--to", target + "/"], databaseURL: db.url)
        #expect(skipped.status == 0 && skipped.lines.count == 1 && skipped.stderr.contains("secret.jpg"), "\(skipped.stderr)")
    }
}
