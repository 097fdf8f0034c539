import FerryTestSupport
import Foundation
import Postgres
import Testing

/// Completions in real shells, against batch names a producer chose to attack the operator's shell: whatever the
/// name, TAB runs nothing, offers the name itself (or leaves it out when the shell cannot take it literally), and the
/// command the operator then runs receives the name itself.
@Suite("completions in bash, zsh and fish with hostile names", .tags(.postgres, .process))
struct CompletionShellTests {
    /// Batch names a `ferry_producer` may give (`ferry.enqueue` takes any printable text), each special to a shell:
    /// command substitutions, a separator, quotes, spaces, globs, braces, tilde, backslash, colons, expansions.
    static let hostile = [
        "x$(id>$HOME/pwned)", "tick`id>$HOME/pwned-tick`", "semi;id>$HOME/pwned-semi", "it's", "say \"hi\"",
        "trip 2025", "trip 2026", "star*", "q?", "[a]", "brace{a,b}", "~root", "back\\slash", "col:on", ":lead",
        "$((6*7))", "$HOME", "plain-2025",
    ]
    /// A C1 control (CSI, which `ferry.enqueue` accepts) and a newline (refused at enqueue today, so written into
    /// the projection as an older database may hold it): no shell can show them literally, none offers them.
    static let unshowable = ["c1\u{9B}31m", "two\nlines$(id>$HOME/pwned-newline)"]

    /// What bash offers: readline would insert `$`, backticks and a leading `~` unescaped, to expand at Enter.
    static func offeredBy(_ shell: String) -> Set<String> {
        Set(hostile.filter { shell != "bash" || !($0.contains("$") || $0.contains("`") || $0.hasPrefix("~")) })
    }

    /// A database holding the names, enqueued as a producer would (`SET ROLE ferry_producer`), one of them in the
    /// queue `photos`, and an account.
    static func database() async throws -> TestDatabase {
        let db = try await TestDatabase.make("completion_shells")
        let client = db.client(poolSize: 1)
        defer { client.close() }
        try await client.withConnection { connection in
            try connection.execute("SET ROLE ferry_producer")
            let placeholder = "placeholder-newline"
            for (index, batch) in (hostile + [unshowable[0], placeholder]).enumerated() {
                _ = try connection.query(
                    "SELECT ferry.enqueue('fetch', 'https://example.com/a.jpg', $1, jsonb_build_object('batch', $2::text))",
                    ["/srv/in/\(index)/", batch])
            }
            _ = try connection.query(
                "SELECT ferry.enqueue('fetch', 'https://example.com/a.jpg', '/srv/in/q/', $1::jsonb)",
                [#"{"queue": "photos", "batch": "plain-2025"}"#])
            try connection.execute("RESET ROLE")
            try connection.execute("BEGIN; SET LOCAL session_replication_role = replica")
            for table in ["ferry.batch_counts", "ferry.batch_count_deltas"] {
                _ = try connection.query("UPDATE \(table) SET batch = $1 WHERE batch = $2", [unshowable[1], placeholder])
            }
            try connection.execute("COMMIT")
            try connection.execute("INSERT INTO ferry.accounts (name, provider) VALUES ('me', 'dropbox')")
        }
        let stored = try await db.query("SELECT batch FROM ferry.batch_status").rows.map { try $0.decode(String.self, at: 0) }
        #expect(Set(stored) == Set(hostile + unshowable), "\(stored)")
        return db
    }

    @Test("TAB runs nothing and offers the names themselves; the command receives the name", arguments: ["bash", "zsh", "fish"])
    func hostileNames(shell: String) async throws {
        let db = try await Self.database()
        let harness = try await ShellCompletionHarness.make(shell, databaseURL: db.url)
        defer { harness.remove() }

        // Every name at once, in the shell's order, then with a typed prefix holding an escaped space.
        let offered = try await harness.offered(["ferry", "wait", "--batch", ""])
        #expect(Set(offered) == Self.offeredBy(shell) && offered.count == Self.offeredBy(shell).count, "\(shell): \(offered)")
        #expect(Set(try await harness.offered(["ferry", "status", "--batch", #"trip\ 2"#])) == ["trip 2025", "trip 2026"], "\(shell)")

        // One name each, typed as an operator would, TAB, and the argument the command then gets. Names the shell
        // leaves out complete to nothing: the argument stays as typed.
        let lines: [(typed: String, name: String)] = [
            ("semi", "semi;id>$HOME/pwned-semi"), ("it", "it's"), ("say", "say \"hi\""), ("sta", "star*"), ("q", "q?"),
            (#"\["#, "[a]"), ("bra", "brace{a,b}"), ("back", #"back\slash"#), ("col", "col:on"), (#"\:"#, ":lead"),
            ("x", "x$(id>$HOME/pwned)"), ("tick", "tick`id>$HOME/pwned-tick`"), (#"\~"#, "~root"),
        ]
        let accepted = try await harness.accepted(lines.map { "ferry wait --batch \($0.typed)" })
        let expected = lines.map { line in
            Self.offeredBy(shell).contains(line.name) ? line.name : line.typed.replacingOccurrences(of: "\\", with: "")
        }
        #expect(accepted == expected, "\(shell)")
        #expect(harness.markers.isEmpty, "\(shell) ran a name: \(harness.markers)")
    }

    @Test("queue lists, queues and accounts complete in each shell", arguments: ["bash", "zsh", "fish"])
    func otherSources(shell: String) async throws {
        let db = try await Self.database()
        let harness = try await ShellCompletionHarness.make(shell, databaseURL: db.url)
        defer { harness.remove() }
        #expect(try await harness.offered(["ferry", "worker", "--queues", "default,pho"]) == ["default,photos"], "\(shell)")
        #expect(Set(try await harness.offered(["ferry", "status", "--queue", ""])) == ["default", "photos"], "\(shell)")
        #expect(try await harness.offered(["ferry", "account", "show", ""]) == ["me"], "\(shell)")
        #expect(harness.markers.isEmpty, "\(shell): \(harness.markers)")
    }

    @Test("the answer to each shell: single-quoted for bash, escaped for zsh, as is for fish, only plain names for others")
    func answers() async throws {
        let db = try await Self.database()
        func answer(_ shell: String?) async throws -> [String] {
            let result = try await FerryProcess.run(
                ["---completion", "wait", "--", "--batch", "3", "0", "ferry", "wait", "--batch", ""], databaseURL: db.url,
                environment: ["FERRY_COMPLETION_TIMEOUT": "60"].merging(shell.map { ["SAP_SHELL": $0] } ?? [:]) { $1 })
            #expect(result.status == 0 && result.stderr.isEmpty, "\(shell ?? "none"): \(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        let bash = try await answer("bash"), zsh = try await answer("zsh"), fish = try await answer("fish")
        for (shell, lines) in [("bash", bash), ("zsh", zsh), ("fish", fish)] {
            #expect(!lines.contains { $0.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) } }, "\(shell)")
        }
        #expect(bash.contains(#"'it'\''s'"#) && bash.contains("'say \"hi\"'") && bash.contains("'[a]'"), "\(bash)")
        #expect(!bash.contains { $0.contains("$") || $0.contains("`") }, "\(bash)")
        #expect(zsh.contains(#"col\:on"#) && zsh.contains(#"\:lead"#) && zsh.contains(#"back\\slash"#), "\(zsh)")
        #expect(Set(fish) == Set(Self.hostile), "\(fish)")
        let plain = try await answer(nil)
        #expect(plain == ["plain-2025"], "\(plain)")
    }
}
