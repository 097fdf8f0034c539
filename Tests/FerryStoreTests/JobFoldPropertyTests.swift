import FerryCore
import FerryTestSupport
import Foundation
import Testing

/// `JobFold` (Swift) and `ferry.apply_event` with the projection trigger (SQL) are two spellings of one
/// definition. Random histories, valid and not, go through both: every append is accepted or refused alike,
/// with the same SQLSTATE, and every job ends with the same row.
@Suite("job fold property", .tags(.postgres))
struct JobFoldPropertyTests {
    @Test("random histories: the Swift fold and the database accept, refuse (same SQLSTATE) and fold alike", arguments: [0, 1])
    func swiftFoldEqualsDatabase(round: Int) async throws {
        // Round 0 has a fixed seed whose histories reach every refusal (checked below); round 1 explores anew
        // each run. FERRY_FOLD_SEED replays a failure.
        let given = ProcessInfo.processInfo.environment["FERRY_FOLD_SEED"].flatMap(UInt64.init)
        let seed = given ?? (round == 0 ? Self.coveringSeed : UInt64.random(in: 0...UInt64.max))
        let mixed = seed &+ UInt64(round)
        var generator = HistoryGenerator(seed: mixed)
        let histories = (0..<250).map { _ in generator.history() }
        let candidates = histories.flatMap { $0 }
        let db = try await TestDatabase.make("foldprop")
        let result = try await FoldHarness.run(candidates, db: db)

        var mismatches = [String]()
        for (index, candidate) in candidates.enumerated() where result.swiftCodes[index] != result.sqlCodes[index] {
            let history = candidates.filter { $0.jobID == candidate.jobID }.map(\.description).joined(separator: "\n    ")
            mismatches.append("""
                job \(candidate.jobID) event \(candidate): Swift \(result.swiftCodes[index] ?? "accepted"), \
                database \(result.sqlCodes[index] ?? "accepted")
                  history:
                    \(history)
                """)
        }
        #expect(mismatches.isEmpty, "seed \(mixed) (FERRY_FOLD_SEED=\(seed)):\n\(mismatches.prefix(5).joined(separator: "\n"))")
        #expect(result.rowDifferences.isEmpty, "seed \(mixed) (FERRY_FOLD_SEED=\(seed)):\n\(result.rowDifferences.prefix(5).joined(separator: "\n"))")

        // The generator reaches what it is meant to: many appends accepted (lives go on), every kind of refusal seen.
        let accepted = result.sqlCodes.filter { $0 == nil }.count
        let refusals = Set(result.sqlCodes.compactMap { $0 })
        #expect(accepted * 100 > candidates.count * 35, "seed \(mixed): \(accepted) of \(candidates.count) accepted")
        // The rare refusals (unique key, NOT NULL, bad integers) need the right draws; a random round may miss one.
        let required: Set<String> = round == 0 && given == nil
            ? ["FY001", "FY002", "FY003", "FY004", "23505", "23502", "22P02", "22003"]
            : ["FY001", "FY002", "FY003", "FY004"]
        #expect(refusals.isSuperset(of: required), "seed \(mixed): \(refusals.sorted())")
    }

    static let coveringSeed: UInt64 = 2
}
