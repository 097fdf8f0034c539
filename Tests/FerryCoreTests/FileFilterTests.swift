import FerryTestSupport
@testable import FerryCore
import Foundation
import Testing

/// The filter globs' semantics (docs/cli.md, "Filters"), one row per rule of the table.
@Suite("File filters: globs, sizes, ages, rule files", .tags(.fast))
struct FileFilterTests {
    /// (pattern, path relative to the tree's root, matches?)
    static let globs: [(String, String, Bool)] = [
        // A pattern without / matches the file name at any depth.
        ("*.jpg", "a.jpg", true),
        ("*.jpg", "2025/jan/a.jpg", true),
        ("*.jpg", "a.jpeg", false),
        ("*.jpg", "a.jpg/b.txt", false),
        ("a.jpg", "x/a.jpg", true),
        ("a.jpg", "xa.jpg", false),
        // * and ? stop at /; ** crosses it.
        ("2025/*.jpg", "2025/a.jpg", true),
        ("2025/*.jpg", "2025/jan/a.jpg", false),
        ("2025/**.jpg", "2025/jan/a.jpg", true),
        ("2025/**", "2025/jan/feb/a.jpg", true),
        ("?.jpg", "a.jpg", true),
        ("?.jpg", "ab.jpg", false),
        ("a?b", "a/b", false),
        // A pattern with / but no leading / matches a tail of the path that starts at a path element.
        ("jan/*.jpg", "2025/jan/a.jpg", true),
        ("an/*.jpg", "2025/jan/a.jpg", false),
        // A leading / anchors to the root.
        ("/a.jpg", "a.jpg", true),
        ("/a.jpg", "x/a.jpg", false),
        ("/2025/**", "2025/a.jpg", true),
        ("/2025/**", "old/2025/a.jpg", false),
        // A trailing / names a directory: everything below it.
        ("tmp/", "tmp/a.jpg", true),
        ("tmp/", "x/tmp/y/a.jpg", true),
        ("tmp/", "tmp", false),
        ("/tmp/", "x/tmp/a.jpg", false),
        // Sets, ranges, negation, escapes.
        ("[ab].jpg", "b.jpg", true),
        ("[ab].jpg", "c.jpg", false),
        ("[a-c]x", "bx", true),
        ("[!a-c]x", "bx", false),
        ("[^a-c]x", "dx", true),
        ("[!a]", "/", false),
        ("\\*.jpg", "*.jpg", true),
        ("\\*.jpg", "a.jpg", false),
        // Alternatives.
        ("*.{jpg,png}", "a.png", true),
        ("*.{jpg,png}", "a.gif", false),
        ("{2025,2026}/**", "2026/x/y.jpg", true),
        // Alternatives are matched where they stand (never expanded): with stars, empty, inside a tail match.
        ("{*.jpg,sub/**}", "x/sub/a.txt", true),
        ("{*.jpg,sub/**}", "x/a.txt", false),
        ("{,x}a", "a", true),
        ("{,x}a", "xa", true),
        ("{,x}a", "ya", false),
        ("x{a,b}y", "p/xby", true),
        ("x{a,b}y", "pxby", false),
        ("{a\\,b,c}", "a,b", true),
        ("[{,]x", ",x", true),
        ("[{,]x", "{x", true),
        ("{a,b}c/", "bc/d.jpg", true),
        // Unicode and spaces are ordinary characters.
        ("東京*.jpg", "旅/東京タワー.jpg", true),
        ("my file.txt", "docs/my file.txt", true),
        // Case-sensitive, as rclone is by default.
        ("*.JPG", "a.jpg", false),
    ]

    @Test("glob matching", arguments: globs)
    func glob(pattern: String, path: String, matches: Bool) throws {
        let glob = try GlobPattern(pattern)
        #expect(glob.matches(path) == matches, "\(pattern) on \(path)")
    }

    @Test("malformed globs are refused with the fix", arguments: ["", "[abc", "a{b", "a}b", "a{b{c}}", "x\\", "[z-a]"])
    func malformed(pattern: String) {
        #expect(throws: GlobPattern.SyntaxError.self) { try GlobPattern(pattern) }
    }

    /// Backtracking would take 2000^30 steps here: the dynamic programme takes 61 × 2001 (a hang would fail the run).
    @Test("no pattern makes matching exponential")
    func noBlowUp() throws {
        let glob = try GlobPattern(String(repeating: "*a", count: 30) + "b")
        #expect(!glob.matches(String(repeating: "a", count: 2000)))
    }

    /// Issue 30: `{a,b}` 26 times expanded to 2^26 patterns and killed every worker that claimed the job. Braces
    /// now compile to one alternation each (one token per group), so it builds 26 groups of two.
    @Test("a pattern of 26 brace groups compiles to 26 groups and matches exactly the 26-letter a/b names")
    func braceGroupsAreNotExpanded() throws {
        let glob = try GlobPattern(String(repeating: "{a,b}", count: 26) + ".jpg")
        #expect(glob.tokens.count == 26 + 4)
        #expect(glob.matches("x/" + String(repeating: "ab", count: 13) + ".jpg"))
        #expect(!glob.matches(String(repeating: "ab", count: 12) + ".jpg"))
        #expect(!glob.matches(String(repeating: "ab", count: 12) + "ac.jpg"))
    }

    @Test("patterns past the limits are refused, naming the limit and the fix")
    func patternLimits() {
        for (pattern, words) in [
            (String(repeating: "a", count: GlobPattern.maxLength + 1), "more than \(GlobPattern.maxLength)"),
            (String(repeating: "{a,b}", count: 129), "258 braces and commas, more than \(GlobPattern.maxAlternatives)"),
        ] {
            #expect {
                try GlobPattern(pattern)
            } throws: { error in
                (error as? GlobPattern.SyntaxError)?.problem.contains(words) == true
            }
        }
        #expect((try? GlobPattern(String(repeating: "{a,b}", count: 128))) != nil)
    }

    @Test("a filter past the rule limits is refused before any pattern is compiled")
    func filterLimits() throws {
        func json(_ count: Int, pattern: String = "x") -> JSONValue {
            .object(["rules": .array((0..<count).map { _ in .array([.string("-"), .string(pattern), .string("o")]) })])
        }
        #expect(FileFilter(json: json(FileFilter.maxRules)) != nil)
        #expect(FileFilter(json: json(FileFilter.maxRules + 1)) == nil)
        #expect { try FileFilter.parsed(json: json(FileFilter.maxRules + 1)) } throws: { error in
            (error as? ValidationIssue)?.problem == "1001 rules, more than 1000"
        }
        // 70 rules of 1000 bytes: each pattern is fine, together they pass the 64 KiB bound.
        #expect { try FileFilter.parsed(json: json(70, pattern: String(repeating: "z", count: 1000))) } throws: { error in
            (error as? ValidationIssue)?.problem.contains("more than \(FileFilter.maxPatternBytes)") == true
        }
        #expect { try FileFilter.parsed(json: json(1, pattern: "a{b")) } throws: { error in
            (error as? ValidationIssue)?.problem.contains("{ without }") == true
        }
    }

    @Test("first matching rule wins; no match takes the file; excluded folders are not descended")
    func rules() throws {
        let filter = FileFilter(rules: [
            .init(include: true, pattern: try GlobPattern("keep/**"), origin: "+ keep/**"),
            .init(include: false, pattern: try GlobPattern("*.tmp"), origin: "- *.tmp"),
            .init(include: false, pattern: try GlobPattern("/cache/**"), origin: "- /cache/**"),
        ])
        #expect(filter.verdict(path: "keep/a.tmp") == .take)
        #expect(filter.verdict(path: "x/a.tmp") == .skip("excluded by - *.tmp"))
        #expect(filter.verdict(path: "a.jpg") == .take)
        #expect(filter.verdict(path: "cache/a.jpg") == .skip("excluded by - /cache/**"))
        // An include rule comes first: a folder could hold a file it takes, so every folder is read.
        #expect(filter.descends(into: "cache"))
        let excludeOnly = FileFilter(rules: [.init(include: false, pattern: try GlobPattern("/cache/**"), origin: "- /cache/**")])
        #expect(!excludeOnly.descends(into: "cache"))
        #expect(excludeOnly.descends(into: "x/cache"))
        #expect(excludeOnly.descends(into: "cached"))
        let anyDepth = FileFilter(rules: [.init(include: false, pattern: try GlobPattern("node_modules/"), origin: "- node_modules/")])
        #expect(!anyDepth.descends(into: "web/node_modules"))
    }

    /// (size as written, bytes)
    static let sizeTable: [(String, Int64)] = [
        ("100k", 102_400), ("5M", 5_242_880), ("1G", 1_073_741_824), ("1.5K", 1536), ("10B", 10), ("2", 2048), ("5MiB", 5_242_880),
        ("5Mi", 5_242_880),
    ]

    @Test("sizes as rclone writes them", arguments: sizeTable)
    func sizes(text: String, bytes: Int64) {
        #expect(FileFilter.parseSize(text) == bytes)
    }

    @Test("malformed sizes and ages are nil", arguments: ["", "k", "5X", "-1k", "1.2.3M", "five"])
    func malformedSizes(text: String) {
        #expect(FileFilter.parseSize(text) == nil)
        #expect(FileFilter.parseAgeLimit(text, now: Date()) == nil)
    }

    @Test("ages: durations before now, or a date")
    func ages() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(FileFilter.parseAgeLimit("30m", now: now) == now.addingTimeInterval(-1800))
        #expect(FileFilter.parseAgeLimit("2h", now: now) == now.addingTimeInterval(-7200))
        #expect(FileFilter.parseAgeLimit("7d", now: now) == now.addingTimeInterval(-7 * 86_400))
        #expect(FileFilter.parseAgeLimit("1h30m", now: now) == now.addingTimeInterval(-5400))
        #expect(FileFilter.parseAgeLimit("2026-01-31", now: now) == Date(timeIntervalSince1970: 1_769_817_600))
        let filter = FileFilter(minSize: 10, maxSize: 100, modifiedAfter: now.addingTimeInterval(-86_400), modifiedBefore: now.addingTimeInterval(-60))
        #expect(filter.verdict(path: "a", size: 50, modified: now.addingTimeInterval(-3600)) == .take)
        #expect(filter.verdict(path: "a", size: 5, modified: now.addingTimeInterval(-3600)) != .take)
        #expect(filter.verdict(path: "a", size: 500, modified: now.addingTimeInterval(-3600)) != .take)
        #expect(filter.verdict(path: "a", size: 50, modified: now.addingTimeInterval(-2 * 86_400)) != .take)
        #expect(filter.verdict(path: "a", size: 50, modified: now) != .take)
    }

    @Test("a --filter-from file: + and - rules in order, comments, and a bad line named")
    func filterFile() throws {
        let rules = try FileFilter.rules(fromFilterFile: "# photos only\n+ *.jpg\n\n; old style comment\n- **\n", name: "rules.txt")
        #expect(rules.map(\.include) == [true, false])
        #expect(rules[0].origin.contains("rules.txt:2"))
        #expect(throws: ValidationIssue.self) { try FileFilter.rules(fromFilterFile: "+ *.jpg\n*.png\n", name: "rules.txt") }
        #expect(throws: ValidationIssue.self) { try FileFilter.rules(fromFilterFile: "- [oops\n", name: "rules.txt") }
    }

    @Test("a relative age travels as a span and is counted back from when the filter is applied; a hostile span is refused")
    func relativeAges() throws {
        var filter = FileFilter()
        filter.maxAge = 7 * 86_400
        filter.minAge = 3600
        let json = filter.json
        #expect(json["max_age_seconds"] == .int(604_800) && json["modified_after"] == nil)
        let read = try #require(FileFilter(json: json))
        let now = Date(timeIntervalSince1970: 2_000_000_000)
        let anchored = read.anchored(at: now)
        #expect(anchored.modifiedAfter == now.addingTimeInterval(-604_800) && anchored.modifiedBefore == now.addingTimeInterval(-3600))
        #expect(anchored.verdict(path: "a", size: 1, modified: now.addingTimeInterval(-8 * 86_400)) != .take)
        #expect(anchored.verdict(path: "a", size: 1, modified: now.addingTimeInterval(-86_400)) == .take)
        #expect(anchored.verdict(path: "a", size: 1, modified: now.addingTimeInterval(-60)) != .take)
        // A later absolute bound and a span: the stricter one holds.
        var both = read
        both.modifiedAfter = now.addingTimeInterval(-86_400)
        #expect(both.anchored(at: now).modifiedAfter == now.addingTimeInterval(-86_400))
        for hostile: JSONValue in [.int(-1), .int(Int64.max), .string("7d"), .double(1e300)] {
            #expect(throws: ValidationIssue.self) { try FileFilter.parsed(json: .object(["rules": .array([]), "max_age_seconds": hostile])) }
        }
    }
}
