import FerryCore
import FerryTestSupport
import Foundation
import Testing

/// Issue 30: patterns a producer writes cost a linear amount, at the CLI as in SQL and in workers. The CLI took
/// `{a,b}` 20 times in 2.9 s and 715 MB; 26 would have killed it.
@Suite("ferry CLI: hostile patterns", .tags(.postgres, .process))
struct HostilePatternTests {
    @Test("--include with 26 brace groups is matched, not expanded; past the limits it is refused with exit 64, writing nothing")
    func bracePatterns() async throws {
        let db = try await TestDatabase.make("hostile_patterns")
        let dir = try temporaryFolder("hostile-patterns")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let evil = String(repeating: "ab", count: 13) + ".jpg"
        for name in ["a.jpg", evil, "c.txt"] { _ = FileManager.default.createFile(atPath: dir + "/" + name, contents: Data("x".utf8)) }
        let braces = String(repeating: "{a,b}", count: 26) + ".jpg"
        let taken = try await FerryProcess.run(
            ["enqueue", "upload", dir, "--recursive", "--to", "file:///srv/out/", "--include", braces, "--dry-run", "--json"],
            databaseURL: db.url)
        #expect(taken.status == 0, "\(taken.stderr)")
        let fates = try taken.stdout.split(separator: "\n").map { line -> String in
            let object = try JSONValue.parse(String(line))
            return "\(object["fate"]?.stringValue ?? "?") \((object["source"]?.stringValue ?? "").split(separator: "/").last ?? "")"
        }
        #expect(fates.sorted() == ["enqueue \(evil)", "skip a.jpg", "skip c.txt"], "\(taken.stdout)")

        let rules = dir + "/rules.txt"
        try (0...1000).map { "- x\($0)" }.joined(separator: "\n").write(toFile: rules, atomically: true, encoding: .utf8)
        for (arguments, words) in [
            (["--include", String(repeating: "{a,b}", count: 129)], "258 braces and commas, more than 256"),
            (["--exclude", String(repeating: "z", count: 1025)], "more than 1024"),
            (["--filter-from", rules], "1001 rules, more than 1000"),
        ] {
            let refused = try await FerryProcess.run(
                ["enqueue", "upload", dir, "--recursive", "--to", "file:///srv/out/"] + arguments, databaseURL: db.url)
            #expect(refused.status == 64, "\(arguments.first!): \(refused.stderr)")
            #expect(refused.stderr.contains(words), "\(refused.stderr)")
        }
        #expect(try await db.query("SELECT count(*) FROM ferry.events").rows[0].decode(Int.self, at: 0) == 0)
    }
}
