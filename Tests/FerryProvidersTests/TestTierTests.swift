import Foundation
import Testing

/// The fast tier stays fast and stays whole: `make check` runs the targets the Makefile names in FAST_TARGETS, and
/// none of their tests may start PostgreSQL or a `ferry` process (those belong in the slow targets), except the
/// PostgreSQL half of the store contract and the S3 client against moto, which `make check` skips by name. New tests go where they cost least.
@Suite
struct TestTierTests {
    /// What a test that leaves the process (or needs PostgreSQL) calls.
    static let slowHelpers = ["TestDatabase", "FerryProcess", "BackgroundProcess", "DevServerProcess", "TestWorker", "MotoServer", "FERRY_TEST_DATABASE_URL"]
    /// Files of the fast targets allowed to use them: the PostgreSQL half of the store contract and the S3 client
    /// against moto (both skipped by name in make check), and this file, which names the helpers.
    static let allowed: Set<String> = [
        "PostgresStoreContractTests.swift", "PostgresStoreFixture.swift", "MotoIntegrationTests.swift", "TestData.swift", "TestTierTests.swift",
    ]

    static func fastTargets() throws -> [String] {
        let makefile = try String(contentsOf: ProviderSeamTests.root.appendingPathComponent("Makefile"), encoding: .utf8)
        guard let line = makefile.split(separator: "\n").first(where: { $0.hasPrefix("FAST_TARGETS :=") }) else { return [] }
        return line.dropFirst("FAST_TARGETS :=".count).split(separator: " ").map(String.init)
    }

    @Test("the fast targets start no process and need no PostgreSQL, and hold at least 250 tests")
    func fastTier() throws {
        let targets = try Self.fastTargets()
        #expect(targets.count >= 9, "\(targets)")
        var offenders = [String]()
        var tests = 0
        for target in targets {
            let base = ProviderSeamTests.root.appendingPathComponent("Tests/" + target).path
            guard let walker = FileManager.default.enumerator(atPath: base) else {
                Issue.record("no folder Tests/\(target)")
                continue
            }
            while let relative = walker.nextObject() as? String {
                guard relative.hasSuffix(".swift") else { continue }
                let text = try String(contentsOfFile: base + "/" + relative, encoding: .utf8)
                tests += text.components(separatedBy: "@Test").count - 1
                let name = (relative as NSString).lastPathComponent
                if !Self.allowed.contains(name), let helper = Self.slowHelpers.first(where: { text.contains($0) }) {
                    offenders.append("\(target)/\(relative) uses \(helper)")
                }
            }
        }
        #expect(offenders.isEmpty, "move these tests to a slow target (FerryWorkerTests, FerryCLITests, FerryStoreTests …): \(offenders)")
        #expect(tests >= 250, "the fast tier holds \(tests) tests")
    }
}
