import Foundation
import Testing

/// Which tier this test process runs: `make check` sets `FERRY_TEST_TIER=fast` (and unsets the PostgreSQL and
/// binary variables) to run only tests tagged `.fast`. The helpers that reach PostgreSQL or start a process call
/// `refuseInFastTier`, so a fast test that does either fails at once, naming the fix, instead of passing on a
/// developer's machine that happens to have a database.
public enum TestTier {
    /// True in `make check` (scripts/fast-tier.sh).
    public static var isFast: Bool { ProcessInfo.processInfo.environment["FERRY_TEST_TIER"] == "fast" }

    /// Records an issue and throws in a fast-tier run; does nothing otherwise. `what` says what was reached for.
    public static func refuseInFastTier(_ what: String) throws {
        guard isFast else { return }
        let message = "a test of the fast tier (make check) reached for \(what): tag its suite .postgres or .process "
            + "(Tests/FerryTestSupport/Tags.swift) so it runs under make test, or keep it in process"
        Issue.record(Comment(rawValue: message))
        throw TestSupportError(message)
    }
}
