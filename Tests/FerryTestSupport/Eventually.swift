import Foundation

/// Polls `condition` until it holds or `timeout` passes. Tests wait on conditions, never on fixed sleeps.
public func eventually(
    timeout: Duration = .seconds(300), interval: Duration = .milliseconds(50), _ what: String = "condition",
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: interval)
    }
    if try await condition() { return }
    throw TestSupportError("timed out after \(timeout) waiting for \(what)")
}
