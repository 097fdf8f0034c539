import FerryTestSupport
import Foundation
import Testing

/// The fast tier stays fast and stays whole: `make check` runs every test tagged `.fast` (scripts/fast-tier.sh selects
/// them by tag from the built bundle and fails on a test with no tier tag), and at run time the test-support helpers
/// refuse PostgreSQL and child processes under it (`TestTier`). This reads the sources as a backstop that names the
/// file: a suite tagged `.fast` calls none of the helpers that leave the process. New tests go where they cost least.
@Suite(.tags(.fast))
struct TestTierTests {
    /// What a test that leaves the process (or needs PostgreSQL) calls.
    static let slowHelpers = [
        "TestDatabase.make", "FerryProcess", "BackgroundProcess", "DevServerProcess", "TestWorker", "MotoServer", "PrivateCluster",
        "FERRY_TEST_DATABASE_URL", "Process()",
    ]
    static let tiers = [".fast", ".postgres", ".s3", ".process"]

    /// The test files of every test target, with their text.
    static func testFiles() throws -> [(path: String, text: String)] {
        let base = ProviderSeamTests.root.appendingPathComponent("Tests").path
        guard let walker = FileManager.default.enumerator(atPath: base) else { return [] }
        var files = [(path: String, text: String)]()
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".swift"), !relative.hasPrefix("FerryTestSupport/") else { continue }
            let text = try String(contentsOfFile: base + "/" + relative, encoding: .utf8)
            if text.contains("@Test") { files.append((relative, text)) }
        }
        return files
    }

    /// The tier tags a file's suites and tests carry.
    static func tags(_ text: String) -> Set<String> {
        Set(Self.tiers.filter { tier in text.contains(".tags(" + tier) || text.contains(", " + tier + ")") || text.contains(", " + tier + ",") })
    }

    @Test("every test file names its tier; fast files start no process and need no PostgreSQL; the fast tier holds at least 250 tests")
    func fastTier() throws {
        var untiered = [String]()
        var offenders = [String]()
        var fast = 0
        for file in try Self.testFiles() {
            let tags = Self.tags(file.text)
            if tags.isEmpty { untiered.append(file.path) }
            guard tags == [".fast"], file.path != "FerryProvidersTests/TestTierTests.swift" else { continue }
            fast += file.text.components(separatedBy: "@Test").count - 1
            if let helper = Self.slowHelpers.first(where: { file.text.contains($0) }) {
                offenders.append("\(file.path) uses \(helper)")
            }
        }
        #expect(untiered.isEmpty, "tag these suites .fast, .postgres, .s3 or .process (Tests/FerryTestSupport/Tags.swift): \(untiered)")
        #expect(offenders.isEmpty, "tag these suites .postgres, .s3 or .process, or keep them in process: \(offenders)")
        #expect(fast >= 250, "the fast tier holds \(fast) tests")
    }

    @Test("make check runs the fast tier by tag, without the database variables, and make test runs it once, first")
    func makeCheckSelectsByTag() throws {
        let root = ProviderSeamTests.root
        let makefile = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
        #expect(makefile.contains("@scripts/fast-tier.sh\n"))
        let script = try String(contentsOf: root.appendingPathComponent("scripts/fast-tier.sh"), encoding: .utf8)
        #expect(script.contains("-u FERRY_TEST_DATABASE_URL") && script.contains("FERRY_TEST_TIER=fast"))
        let test = try String(contentsOf: root.appendingPathComponent("scripts/test.sh"), encoding: .utf8)
        #expect(test.contains(#"fast=$(scripts/fast-tier.sh filter)"#))
        #expect(test.contains(#"FERRY_TEST_TIER=fast swift test --skip-build --filter "$fast""#))
        // The other phases skip what the fast one ran: no test runs twice.
        #expect(test.components(separatedBy: #"--skip "$fast""#).count - 1 == 2)
    }
}
